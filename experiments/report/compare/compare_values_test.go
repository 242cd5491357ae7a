package compare

import (
	"dptext/experiments/report"
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

// An accuracy row beside its cell's correct/total is checked against them (Runs tests the
// counts only): setting an accuracy of 1 to 0 in every repeat of both sides — which printed
// "OK … 0 moved" — is refused as a value no run writes, naming the row and its quotient; a
// consistent edit of correct and accuracy together is moved by Fisher's test instead. The
// mutant: without the accuracy check in checkValues, Runs returns an OK verdict.
func TestCompareChecksAccuracyAgainstItsCounts(t *testing.T) {
	rows := countRows("20", "koppel11", report.NoEpsilon.Value(), []float64{20, 20}, 20)
	for i := range rows {
		rows[i].Mechanism, rows[i].Epsilon = "none", report.NoEpsilon
	}
	if v, err := Runs(rows, rows, DefaultOptions()); err != nil || !v.OK() {
		t.Fatalf("consistent rows: %v, %v", v, err)
	}
	edited := slices.Clone(rows)
	for i := range edited {
		if edited[i].Metric == report.MetricAccuracy {
			edited[i].Value = 0
		}
	}
	_, err := Runs(edited, edited, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "20/none//koppel11/accuracy repeat 0: 0 is not its correct/total 20/20 = 1") {
		t.Fatalf("accuracy 1 → 0 beside correct 20 of 20: err = %v", err)
	}
	moved := countRows("20", "koppel11", report.NoEpsilon.Value(), []float64{0, 0}, 20)
	for i := range moved {
		moved[i].Mechanism, moved[i].Epsilon = "none", report.NoEpsilon
	}
	v, err := Runs(rows, moved, DefaultOptions())
	if err != nil || v.OK() {
		t.Fatalf("correct and accuracy both 20/20 → 0/20: %v, %v; want a moved cell", v, err)
	}
}

// Two results.csv files with a header and no rows are no passing comparison ("OK: 0 cells
// tested"): Runs fails, saying nothing was tested. A baseline with rows against an empty run
// still fails as a verdict listing the missing cells. The mutant: without the check, Runs
// returns an OK verdict with no tested cell.
func TestCompareRefusesNothingToTest(t *testing.T) {
	_, err := Runs(nil, nil, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "no cell to test") {
		t.Fatalf("header-only files: err = %v", err)
	}
	v, err := Runs(fixtureRows(t), nil, DefaultOptions())
	if err != nil || v.OK() || len(v.OnlyInBaseline) == 0 {
		t.Fatalf("rows against an empty run: %v, %v; want a failing verdict listing the baseline's cells", v, err)
	}
}
