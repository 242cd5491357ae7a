package verdict

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClusterWeights draws replicates of a cluster bootstrap (Davison and Hinkley 1997, Sect.
// 3.8, the "randomise clusters only" scheme): each replicate draws clusters clusters with
// replacement, and w[b][c] is how often cluster c was drawn in replicate b. Every item then
// enters a replicate's statistics with its cluster's weight, so that items of one cluster (the
// snippets of one author, in every repeat) are kept or dropped together and their correlation
// is carried into the interval; and every cell of a table is resampled with the same weights,
// so that differences between rows are paired.
func ClusterWeights(rng *rand.Rand, clusters, replicates int) [][]float64 {
	w := make([][]float64, replicates)
	for b := range w {
		w[b] = make([]float64, clusters)
		for range clusters {
			w[b][rng.IntN(clusters)]++
		}
	}
	return w
}

// WeightedMean returns Σ w[cluster[i]]·x[i] / Σ w[cluster[i]] over the items whose value is
// not NaN (NaN when none is left): the mean of a bootstrap replicate when w holds its cluster
// weights, and the plain mean when every weight is 1.
func WeightedMean(x []float64, cluster []int, w []float64) float64 {
	var num, den float64
	for i, v := range x {
		if math.IsNaN(v) {
			continue
		}
		num += w[cluster[i]] * v
		den += w[cluster[i]]
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// ExpandedPercentileInterval is the expanded percentile interval of Hesterberg ("What teachers
// should know about the bootstrap", The American Statistician 2015, Sect. 4.4) for a bootstrap
// over n clusters: the plain percentile interval at the level 2Φ(√(n/(n−1))·t_{(1+level)/2,
// n−1}) − 1 instead of level, which corrects the percentile interval's narrowness in small
// samples (the bootstrap variance is (n−1)/n of the plug-in one, and a normal rather than a t
// quantile). With 60 clusters a 95 % interval takes the 96.1 % percentile interval; without the
// correction the simulation of the tests covers 92.5 % instead of 95 %. NaN for n < 2.
func ExpandedPercentileInterval(reps []float64, level float64, n int) (low, high float64) {
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	return PercentileInterval(reps, expandedLevel(level, n))
}

// PercentileInterval returns the two-sided percentile interval of the replicates at the given
// confidence level (the (1−level)/2 and (1+level)/2 quantiles, each interpolated between
// order statistics), ignoring NaN replicates; NaN when none is left.
func PercentileInterval(reps []float64, level float64) (low, high float64) {
	var xs []float64
	for _, x := range reps {
		if !math.IsNaN(x) {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(xs)
	return quantileSorted(xs, (1-level)/2), quantileSorted(xs, (1+level)/2)
}

// quantileSorted is the p-quantile of sorted xs by linear interpolation between order
// statistics at position p·(n−1). xs may hold −∞ and +∞ (unreached replicates counted
// against a claim): interpolation towards an infinite neighbour is that infinity, the limit
// of the finite case.
func quantileSorted(xs []float64, p float64) float64 {
	pos := p * float64(len(xs)-1)
	i := int(math.Floor(pos))
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	if i < 0 {
		return xs[0]
	}
	f := pos - float64(i)
	switch {
	case f == 0 || xs[i] == xs[i+1] || math.IsInf(xs[i], -1):
		return xs[i]
	case math.IsInf(xs[i+1], 1):
		return xs[i+1]
	}
	return xs[i] + f*(xs[i+1]-xs[i])
}

// expandedLevel is the percentile level of the expanded percentile interval at confidence
// level over n clusters: 2Φ(√(n/(n−1))·t_{(1+level)/2, n−1}) − 1.
func expandedLevel(level float64, n int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1 + level) / 2)
	return 2*distuv.UnitNormal.CDF(math.Sqrt(float64(n)/float64(n-1))*t) - 1
}

// againstClaim returns the replicates sorted twice with every NaN replicate (one in which the
// compared quantity does not exist, e.g. a curve that does not reach the level) counted
// against any claim: as −∞ in low (against "the difference is above 0") and as +∞ in high
// (against "below 0").
func againstClaim(reps []float64) (low, high []float64) {
	low, high = make([]float64, len(reps)), make([]float64, len(reps))
	k := 0 // the NaN replicates
	for i, x := range reps {
		low[i] = x
		if math.IsNaN(x) {
			low[i] = math.Inf(-1)
			k++
		}
	}
	sort.Float64s(low)
	// high is low with its k leading −∞ moved to the end as +∞: sorted without a second sort
	// (the replicates themselves are finite).
	copy(high, low[k:])
	for i := len(low) - k; i < len(high); i++ {
		high[i] = math.Inf(1)
	}
	return low, high
}

// ConservativeInterval is the expanded percentile interval (ExpandedPercentileInterval) of
// the replicates over n clusters with every NaN replicate counted against both ends: the low
// end is taken with the NaN replicates at −∞, the high end with them at +∞. Where every
// replicate is a number it is the expanded percentile interval; where some are not, an end can
// be infinite. It excludes 0 exactly when InvertedP(reps, n) < 1 − level (for 1 − level above
// the p-value floor 1/(B+1)). NaN for n < 2 or fewer than two replicates.
func ConservativeInterval(reps []float64, level float64, n int) (low, high float64) {
	if n < 2 || len(reps) < 2 {
		return math.NaN(), math.NaN()
	}
	lo, hi := againstClaim(reps)
	return conservativeInterval(lo, hi, level, n)
}

// conservativeInterval is ConservativeInterval of replicates already sorted by againstClaim.
func conservativeInterval(lo, hi []float64, level float64, n int) (low, high float64) {
	c := expandedLevel(level, n)
	return quantileSorted(lo, (1-c)/2), quantileSorted(hi, (1+c)/2)
}

// InvertedP is the two-sided p-value of "the difference is 0" obtained by inverting
// ConservativeInterval on the same replicates: the smallest α at which the interval at
// confidence 1 − α excludes 0, floored at 1/(B+1) for B replicates (B replicates resolve
// nothing finer). So "the interval at 1 − α excludes 0" and "p < α" agree for every α above
// 1/(B+1), and a NaN replicate counts against the difference as it does in the interval.
// Derivation: with c′ the percentile level of the expanded interval at 1 − α, the low end is
// above 0 exactly when (1 − c′)/2 lies above the quantile position qL where the sorted
// replicates (NaN at −∞) turn positive, and the high end below 0 exactly when (1 + c′)/2 lies
// below the position qH where those with NaN at +∞ stop being negative; so the interval
// excludes 0 for c′ < c* = max(1 − 2qL, 2qH − 1), and mapping c* back through the expansion
// gives p = 2·P(T_{n−1} > Φ⁻¹((1 + c*)/2)/√(n/(n−1))). NaN for n < 2 or fewer than two
// replicates.
func InvertedP(reps []float64, n int) float64 {
	if n < 2 || len(reps) < 2 {
		return math.NaN()
	}
	lo, hi := againstClaim(reps)
	return invertedP(lo, hi, n)
}

// invertedP is InvertedP of replicates already sorted by againstClaim.
func invertedP(lo, hi []float64, n int) float64 {
	B := len(lo)
	last := float64(B - 1)
	// qL: the quantile position above which the low-side quantile is > 0.
	qL := 1.0
	switch k := sort.Search(B, func(i int) bool { return lo[i] > 0 }); {
	case k == 0:
		qL = -1 // every replicate above 0: the low end is above 0 at every level
	case k < B:
		f := 1.0
		if !math.IsInf(lo[k-1], -1) {
			f = -lo[k-1] / (lo[k] - lo[k-1])
		}
		qL = (float64(k-1) + f) / last
	}
	// qH: the quantile position below which the high-side quantile is < 0.
	qH := 0.0
	switch k := sort.Search(B, func(i int) bool { return hi[i] >= 0 }); {
	case k == B:
		qH = 2 // every replicate below 0
	case k > 0:
		f := 0.0
		if !math.IsInf(hi[k], 1) {
			f = -hi[k-1] / (hi[k] - hi[k-1])
		}
		qH = (float64(k-1) + f) / last
	}
	floor := 1 / float64(B+1)
	cStar := math.Max(1-2*qL, 2*qH-1)
	switch {
	case cStar <= 0:
		return 1
	case cStar >= 1:
		return floor
	}
	z := distuv.UnitNormal.Quantile((1 + cStar) / 2)
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Survival(z/math.Sqrt(float64(n)/float64(n-1)))
	return math.Max(p, floor)
}

// Holm returns the Holm (1979) step-down adjusted p-values of ps, which control the
// family-wise error rate over all of them: sorted ascending, the k-th smallest (k from 0) is
// multiplied by (m − k), made monotone by a running maximum and capped at 1. NaN p-values are
// left NaN and do not count in m.
func Holm(ps []float64) []float64 {
	idx := make([]int, 0, len(ps))
	for i, p := range ps {
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]float64, len(ps))
	for i := range out {
		out[i] = math.NaN()
	}
	m, run := len(idx), 0.0
	for k, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-k)*ps[i]))
		out[i] = run
	}
	return out
}
