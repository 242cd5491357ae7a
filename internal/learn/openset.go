package learn

import (
	"maps"
	"math"
	"slices"
)

// OpenSetMacroF1 is the measure of the PAN 2018 and 2019 attribution evaluators: the F1 of every
// class that is the true label of some item, the open-set label `unknown` excluded, averaged; a
// class never predicted right has F1 0. Items whose truth is `unknown` are no class, but a
// prediction of a class for one counts against that class's precision. NaN when every truth is
// `unknown`.
func OpenSetMacroF1(truth, pred []string, unknown string) float64 {
	tp, predicted, actual := map[string]int{}, map[string]int{}, map[string]int{}
	for i, t := range truth {
		actual[t]++
		predicted[pred[i]]++
		if pred[i] == t {
			tp[t]++
		}
	}
	sum, n := 0.0, 0
	for _, c := range slices.Sorted(maps.Keys(actual)) {
		if c == unknown {
			continue
		}
		n++
		if tp[c] == 0 {
			continue
		}
		prec, rec := float64(tp[c])/float64(predicted[c]), float64(tp[c])/float64(actual[c])
		sum += 2 * prec * rec / (prec + rec)
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
