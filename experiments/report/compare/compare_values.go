package compare

import (
	"dptext/experiments/report"
	"fmt"
	"math"
	"strings"
)

// unitMetrics are the metrics that are proportions, in [0, 1].
var unitMetrics = map[string]bool{report.MetricAccuracy: true, report.MetricMacroPrecision: true, report.MetricMacroRecall: true,
	report.MetricMacroF1: true, report.MetricValidationAccuracy: true}

// countMetrics are the metrics that count evaluation items: whole numbers from 0 to the set's
// eval_docs.
var countMetrics = map[string]bool{report.MetricCorrect: true, report.MetricTotal: true, report.MetricUnscored: true}

// infiniteMetrics may be +Inf: the audit's ceiling where a test is exact.
var infiniteMetrics = map[string]bool{"audited_eps_ceiling": true}

// splitCounts are the split facts that count something.
var splitCounts = map[string]bool{"authors": true, "topics": true, "n_words": true, "eval_docs": true,
	"topic_train_docs": true, "topic_validation_docs": true}

// accuracyTolerance is how far an accuracy row may lie from its correct/total (a run writes
// the quotient itself; 1e-9 leaves room for a results.csv rewritten with fewer digits).
const accuracyTolerance = 1e-9

// checkValues fails when rows hold a value no run writes: NaN or ±Inf (+Inf is allowed where
// a run writes it: infiniteMetrics), a proportion outside
// [0, 1], a count that is negative, fractional, above the set's eval_docs (of the same repeat,
// else the largest of the set), a correct count above its total, or an accuracy that is not
// its repeat's correct/total (Runs tests the counts of such cells, so an accuracy that
// disagreed with them would go untested). side names the rows in
// the error, which lists up to five offending rows and how many there are.
func checkValues(rows []report.Row, side string) error {
	// Keys are strings: a Key with an absent ε (NaN) never equals itself.
	cellRep := func(r report.Row) string { return fmt.Sprintf("%s\x00%d", keyOf(r, report.MetricCorrect), r.Repeat) }
	evalDocs := map[string]map[int]float64{}
	totals, corrects := map[string]float64{}, map[string]float64{}
	for _, r := range rows {
		switch {
		case r.Scorer == report.SplitScorer && r.Metric == "eval_docs":
			if evalDocs[r.Set] == nil {
				evalDocs[r.Set] = map[int]float64{}
			}
			evalDocs[r.Set][r.Repeat] = r.Value
		case r.Metric == report.MetricTotal:
			totals[cellRep(r)] = r.Value
		case r.Metric == report.MetricCorrect:
			corrects[cellRep(r)] = r.Value
		}
	}
	itemBound := func(r report.Row) (float64, bool) {
		reps, ok := evalDocs[r.Set]
		if !ok {
			return 0, false
		}
		if v, ok := reps[r.Repeat]; ok {
			return v, true
		}
		m := 0.0
		for _, v := range reps {
			m = math.Max(m, v)
		}
		return m, true
	}
	var bad []string
	for _, r := range rows {
		v, why := r.Value, ""
		switch {
		case math.IsInf(v, 1) && infiniteMetrics[r.Metric]:
		case math.IsNaN(v) || math.IsInf(v, 0):
			why = "is not a finite number"
		case unitMetrics[r.Metric] && (v < 0 || v > 1):
			why = "is outside [0, 1]"
		case (countMetrics[r.Metric] || wordCounts[r.Metric] || r.Scorer == report.SplitScorer && splitCounts[r.Metric]) && (v < 0 || v != math.Trunc(v)):
			why = "is not a count (a whole number ≥ 0)"
		}
		if why == "" && countMetrics[r.Metric] {
			if n, ok := itemBound(r); ok && v > n {
				why = fmt.Sprintf("is above the set's %v evaluation documents", n)
			} else if t, ok := totals[cellRep(r)]; ok && r.Metric == report.MetricCorrect && v > t {
				why = fmt.Sprintf("is above its total %v", t)
			}
		}
		if why == "" && r.Metric == report.MetricAccuracy {
			c, okC := corrects[cellRep(r)]
			t, okT := totals[cellRep(r)]
			if okC && okT && t > 0 && math.Abs(v-c/t) > accuracyTolerance {
				why = fmt.Sprintf("is not its correct/total %v/%v = %v", c, t, c/t)
			}
		}
		if why != "" {
			bad = append(bad, fmt.Sprintf("%s repeat %d: %v %s", keyOf(r, r.Metric), r.Repeat, v, why))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	n := len(bad)
	if n > 5 {
		bad = append(bad[:5], fmt.Sprintf("and %d more", n-5))
	}
	return fmt.Errorf("compare: the %s holds %d value(s) no run writes (damaged or hand-edited results?):\n  %s", side, n, strings.Join(bad, "\n  "))
}

// keyOf is the row's cell key with metric replaced.
func keyOf(r report.Row, metric string) report.Key {
	return report.Key{Set: r.Set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: r.Scorer, Metric: metric}
}
