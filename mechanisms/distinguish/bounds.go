package distinguish

import (
	"math"
	"math/rand/v2"
	"slices"

	"dptext/internal/stats"
)

// bounds returns the mean of perPair (pair p in cluster clusters[p]) with its one-sided (1 − α)
// lower and upper confidence bounds: the α and 1 − α quantiles of the mean over o.Replicates
// bootstrap resamples of the clusters (with replacement; a resample's mean weighs every drawn
// pair equally), each widened to the Clopper–Pearson bound of correct in trials pooled trials
// where that is wider. The pooled bound alone would treat the releases of one pair as
// independent; it only takes over near 0 and 1, where every resample has the same mean.
func bounds(perPair []float64, clusters []int, correct float64, trials int, o Options, rng *rand.Rand) (mean, low, high float64) {
	ids := slices.Compact(slices.Sorted(slices.Values(clusters)))
	index := map[int]int{}
	for i, c := range ids {
		index[c] = i
	}
	sum := make([]float64, len(ids))
	count := make([]float64, len(ids))
	for p, a := range perPair {
		c := index[clusters[p]]
		sum[c] += a
		count[c]++
		mean += a
	}
	mean /= float64(len(perPair))
	reps := make([]float64, o.Replicates)
	for b := range reps {
		s, n := 0.0, 0.0
		for range ids {
			c := rng.IntN(len(ids))
			s += sum[c]
			n += count[c]
		}
		reps[b] = s / n
	}
	slices.Sort(reps)
	lo := int(math.Floor(o.Alpha * float64(o.Replicates)))
	hi := int(math.Ceil((1-o.Alpha)*float64(o.Replicates))) - 1
	low = min(reps[lo], stats.ClopperPearsonLower(int(math.Floor(correct)), trials, o.Alpha))
	high = max(reps[hi], stats.ClopperPearsonUpper(int(math.Ceil(correct)), trials, o.Alpha))
	return mean, low, high
}
