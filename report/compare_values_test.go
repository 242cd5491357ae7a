package report

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Compare refuses results a run cannot write: NaN, ±Inf, proportions outside [0, 1] and counts
// above their item count, on either side; identical fixture rows pass.
func TestCompareRejectsImpossibleValues(t *testing.T) {
	if _, err := Compare(fixtureRows(), fixtureRows(), DefaultCompareOptions()); err != nil {
		t.Fatalf("valid rows refused: %v", err)
	}
	rows := append(fixtureRows(), Row{Set: "s", Mechanism: "none", Scorer: SplitScorer, Metric: "eval_docs", Value: 8},
		Row{Set: "s", Mechanism: "none", Scorer: "cos", Metric: MetricUnscored, Value: 3})
	if _, err := Compare(rows, rows, DefaultCompareOptions()); err != nil {
		t.Fatalf("valid rows refused: %v", err)
	}
	edit := func(match func(Row) bool, v float64) []Row {
		out := slices.Clone(rows)
		n := 0
		for i := range out {
			if match(out[i]) {
				out[i].Value, n = v, n+1
			}
		}
		if n == 0 {
			t.Fatal("the edit matched no row")
		}
		return out
	}
	metric := func(m string) func(Row) bool { return func(r Row) bool { return r.Metric == m } }
	first := func(m string) func(Row) bool {
		done := false
		return func(r Row) bool {
			if done || r.Metric != m {
				return false
			}
			done = true
			return true
		}
	}
	for _, c := range []struct {
		name string
		run  []Row
		want string
	}{
		{"one NaN", edit(first(MetricAccuracy), math.NaN()), "not a finite number"},
		{"every accuracy +Inf", edit(metric(MetricAccuracy), math.Inf(1)), "not a finite number"},
		{"-Inf count", edit(first(MetricCorrect), math.Inf(-1)), "not a finite number"},
		{"accuracy 1e308", edit(first(MetricAccuracy), 1e308), "outside [0, 1]"},
		{"negative accuracy", edit(first(MetricAccuracy), -0.1), "outside [0, 1]"},
		{"correct above total", edit(first(MetricCorrect), 1e6), "above"},
		{"unscored above eval_docs", edit(metric(MetricUnscored), 9), "above the set's 8 evaluation documents"},
		{"fractional count", edit(first(MetricTotal), 2.5), "not a count"},
	} {
		_, err := Compare(rows, c.run, DefaultCompareOptions())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "the run holds") {
			t.Errorf("%s: got %v, want an error about the run saying %q", c.name, err, c.want)
		}
		if _, err := Compare(c.run, rows, DefaultCompareOptions()); err == nil || !strings.Contains(err.Error(), "the baseline holds") {
			t.Errorf("%s in the baseline: got %v", c.name, err)
		}
	}
}
