package compare

import (
	"math"

	"dptext/experiments/report"
	"dptext/internal/stats"
)

// MethodPairedItems tests a utility measure's cell whose evaluation items baseline and run both
// scored (from predictions.csv): the exact sign test of the per-item differences.
const MethodPairedItems = "paired-items"

// Item is one evaluation item's score in predictions.csv: its cell (metric correct for a
// classifier's answer, mean for a utility measure's score), repeat and position in the
// repeat's draw, and its value (1 right, 0 wrong; or the score).
type Item struct {
	Key          report.Key
	Repeat, Item int
	Value        float64
}

// itemIndex groups items by cell (the key's text) and (repeat, item).
func itemIndex(items []Item) map[string]map[[2]int]float64 {
	out := map[string]map[[2]int]float64{}
	for _, it := range items {
		k := it.Key.String()
		if out[k] == nil {
			out[k] = map[[2]int]float64{}
		}
		out[k][[2]int{it.Repeat, it.Item}] = it.Value
	}
	return out
}

// pairedItemsP is the two-sided exact sign test of the differences run − baseline over the
// items both sides scored (ties dropped): under "same law", the baseline's and the run's scores
// of one item (the same document, same seed and split) are exchangeable, so a difference is as
// likely up as down. ok is false when the two sides did not score the same items (another
// split, or a side without predictions). Without a difference p is 1.
func pairedItemsP(base, run map[[2]int]float64) (p float64, up, down int, ok bool) {
	if len(base) == 0 || len(base) != len(run) {
		return 0, 0, 0, false
	}
	for k, b := range base {
		r, found := run[k]
		if !found {
			return 0, 0, 0, false
		}
		switch {
		case math.IsNaN(b) || math.IsNaN(r):
		case r > b:
			up++
		case r < b:
			down++
		}
	}
	return signP(min(up, down), up+down), up, down, true
}

// signP is the two-sided exact binomial p-value of k or fewer of n in the rarer direction,
// min(1, 2·P(X ≤ k)), X ~ Binomial(n, 1/2); 1 when n = 0.
func signP(k, n int) float64 {
	if n == 0 {
		return 1
	}
	sum := 0.0
	for i := 0; i <= k; i++ {
		sum += math.Exp(stats.LogChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*sum)
}

// signThreshold is the smallest number of items that, all moving the same way, the sign test
// flags at level (n+1 when n items cannot).
func signThreshold(n int, level float64) int {
	for d := 1; d <= n; d++ {
		if signP(0, d) <= level {
			return d
		}
	}
	return n + 1
}
