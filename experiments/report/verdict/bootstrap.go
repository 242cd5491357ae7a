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
// statistics at position p·(n−1); interpolation towards an infinite neighbour is that
// infinity, the limit of the finite case.
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
