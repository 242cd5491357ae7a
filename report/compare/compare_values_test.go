package compare

import (
	"dptext/report"
	"math"
	"slices"
	"strings"
	"testing"
)

// Compare refuses results a run cannot write: NaN, ±Inf, proportions outside [0, 1] and counts
// above their item count, on either side; identical fixture rows pass.
func TestCompareRejectsImpossibleValues(t *testing.T) {
	if _, err := Runs(fixtureRows(t), fixtureRows(t), DefaultOptions()); err != nil {
		t.Fatalf("valid rows refused: %v", err)
	}
	rows := append(fixtureRows(t), report.Row{Set: "s", Mechanism: "none", Scorer: report.SplitScorer, Metric: "eval_docs", Value: 8},
		report.Row{Set: "s", Mechanism: "none", Scorer: "cos", Metric: report.MetricUnscored, Value: 3})
	if _, err := Runs(rows, rows, DefaultOptions()); err != nil {
		t.Fatalf("valid rows refused: %v", err)
	}
	edit := func(match func(report.Row) bool, v float64) []report.Row {
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
	metric := func(m string) func(report.Row) bool { return func(r report.Row) bool { return r.Metric == m } }
	first := func(m string) func(report.Row) bool {
		done := false
		return func(r report.Row) bool {
			if done || r.Metric != m {
				return false
			}
			done = true
			return true
		}
	}
	for _, c := range []struct {
		name string
		run  []report.Row
		want string
	}{
		{"one NaN", edit(first(report.MetricAccuracy), math.NaN()), "not a finite number"},
		{"every accuracy +Inf", edit(metric(report.MetricAccuracy), math.Inf(1)), "not a finite number"},
		{"-Inf count", edit(first(report.MetricCorrect), math.Inf(-1)), "not a finite number"},
		{"accuracy 1e308", edit(first(report.MetricAccuracy), 1e308), "outside [0, 1]"},
		{"negative accuracy", edit(first(report.MetricAccuracy), -0.1), "outside [0, 1]"},
		{"correct above total", edit(first(report.MetricCorrect), 1e6), "above"},
		{"unscored above eval_docs", edit(metric(report.MetricUnscored), 9), "above the set's 8 evaluation documents"},
		{"fractional count", edit(first(report.MetricTotal), 2.5), "not a count"},
	} {
		_, err := Runs(rows, c.run, DefaultOptions())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "the run holds") {
			t.Errorf("%s: got %v, want an error about the run saying %q", c.name, err, c.want)
		}
		if _, err := Runs(c.run, rows, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "the baseline holds") {
			t.Errorf("%s in the baseline: got %v", c.name, err)
		}
	}
}
