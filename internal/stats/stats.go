// Package stats holds the statistics every other package uses: means, medians, standard
// deviations, confidence intervals (Student t, Wilson, Clopper–Pearson) and tests (Fisher's
// exact, Welch's t). It is a leaf: it imports only the standard library and gonum.
package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Mean is the arithmetic mean of xs (NaN when xs is empty).
func Mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Median is the median of xs (the mean of the two middle values for an even count); xs is not
// changed. It panics on an empty slice, which its callers never pass.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MeanSD returns the mean and the sample standard deviation (divisor n−1) of xs; the standard
// deviation is NaN when there are fewer than two values.
func MeanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// THalfWidth is the half-width of the two-sided Student t confidence interval of a mean,
// t_{(1+level)/2, n−1}·sd/√n; NaN for fewer than two values.
func THalfWidth(sd float64, n int, level float64) float64 {
	if n < 2 || math.IsNaN(sd) {
		return math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1 + level) / 2)
	return t * sd / math.Sqrt(float64(n))
}

// Wilson returns the Wilson score interval of a binomial proportion with the given successes
// out of trials at confidence level (Wilson 1927; Newcombe 1998, method 3):
// (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), z the (1+level)/2 normal quantile.
func Wilson(successes, trials, level float64) (low, high float64) {
	if trials <= 0 {
		return math.NaN(), math.NaN()
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	p := successes / trials
	z2 := z * z
	centre := p + z2/(2*trials)
	spread := z * math.Sqrt(p*(1-p)/trials+z2/(4*trials*trials))
	denom := 1 + z2/trials
	return (centre - spread) / denom, (centre + spread) / denom
}

// FisherExact returns the two-sided p-value of Fisher's exact test for the 2×2 table
// [[a, b], [c, d]] (rows: runs; columns: correct, wrong): the total hypergeometric probability of
// all tables with the same margins that are no more probable than the observed one (the usual
// two-sided definition, with a relative slack of 1e-7 for ties in floating point).
func FisherExact(a, b, c, d int) float64 {
	row1, col1, n := a+b, a+c, a+b+c+d
	lo := max(0, col1-(n-row1))
	hi := min(row1, col1)
	logP := func(x int) float64 {
		return LogChoose(row1, x) + LogChoose(n-row1, col1-x) - LogChoose(n, col1)
	}
	observed := logP(a)
	var p float64
	for x := lo; x <= hi; x++ {
		if lp := logP(x); lp <= observed+1e-7 {
			p += math.Exp(lp)
		}
	}
	return math.Min(1, p)
}

// LogChoose is ln C(n, k).
func LogChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Welch returns the two-sided p-value of Welch's unequal-variance t-test of equal means for
// two samples summarised by mean, sample standard deviation and size, with the
// Welch–Satterthwaite degrees of freedom. Both samples need at least two values.
func Welch(m1, sd1 float64, n1 int, m2, sd2 float64, n2 int) float64 {
	v1, v2 := sd1*sd1/float64(n1), sd2*sd2/float64(n2)
	se := math.Sqrt(v1 + v2)
	if se == 0 {
		if m1 == m2 {
			return 1
		}
		return 0
	}
	t := math.Abs(m1-m2) / se
	df := (v1 + v2) * (v1 + v2) / (v1*v1/float64(n1-1) + v2*v2/float64(n2-1))
	return math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t))
}

// ClopperPearsonLower is the one-sided lower confidence bound at level 1 − a for a binomial
// proportion with k successes in n trials: the a-quantile of Beta(k, n − k + 1), 0 when k = 0
// (Clopper and Pearson 1934).
func ClopperPearsonLower(k, n int, a float64) float64 {
	if k <= 0 {
		return 0
	}
	if k >= n {
		return aPow(a, n)
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
}

// ClopperPearsonUpper is the one-sided upper confidence bound at level 1 − a: the
// (1 − a)-quantile of Beta(k + 1, n − k), 1 when k = n.
func ClopperPearsonUpper(k, n int, a float64) float64 {
	if k >= n {
		return 1
	}
	if k <= 0 {
		return 1 - aPow(a, n)
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
}

// aPow is a^(1/n), the closed form of both bounds at the extremes (k = n below, k = 0 above).
func aPow(a float64, n int) float64 {
	return math.Pow(a, 1/float64(n))
}

// PearsonChiSquare returns Pearson's goodness-of-fit statistic Σ (O − E)²/E of n draws with
// counts per category against the category probabilities q, the categories whose expected
// count E = q·n is below 5 merged into one (the usual validity rule), and its degrees of
// freedom (the bins used minus one).
func PearsonChiSquare(counts []int, q []float64, n int) (stat float64, df int) {
	bins := 0
	restObs, restExp := 0.0, 0.0
	for v, c := range counts {
		e := q[v] * float64(n)
		if e < 5 {
			restObs += float64(c)
			restExp += e
			continue
		}
		stat += (float64(c) - e) * (float64(c) - e) / e
		bins++
	}
	if restExp > 0 {
		stat += (restObs - restExp) * (restObs - restExp) / restExp
		bins++
	}
	return stat, bins - 1
}
