package render

import (
	"math"
	"strings"
	"testing"

	"dptext/experiments/report"
)

// openSetRows is a PAN problem like the real PAN 2019 problem 4: 9 candidates, 273 unknown
// texts of which 121 are open-set, and an attacker right on `right` of them (3 repeats).
func openSetRows(right float64) []report.Row {
	var rows []report.Row
	for rep := 0; rep < 3; rep++ {
		fact := func(m string, v float64) report.Row {
			return report.Row{Set: "problem00004", Epsilon: report.NoEpsilon, Repeat: rep, Scorer: report.SplitScorer, Metric: m, Value: v}
		}
		rows = append(rows, fact("authors", 9), fact("topics", 1), fact("eval_docs", 273), fact(FactOpenSetDocs, 121),
			fact(FactChanceOpenSetMacroF1, OpenSetChanceF1(map[string]int{"a": 100, "b": 52}, 273, 9)))
		cell := func(m string, v float64) report.Row {
			return report.Row{Set: "problem00004", Mechanism: "none", Epsilon: report.NoEpsilon, Repeat: rep, Scorer: "koppel11", Metric: m, Value: v}
		}
		rows = append(rows, cell(report.MetricCorrect, right), cell(report.MetricTotal, 273), cell(report.MetricAccuracy, right/273))
	}
	return rows
}

// A uniform guess among 9 candidates is right on at most the 152 closed-set texts of 273:
// chance 152/273 × 1/9 = 0.0619, not 1/9. 33 of 273 right is then far above chance
// (P(X ≥ 33) ≈ 0.0002) and must not be flagged; 22 of 273 (P ≈ 0.14) must. The check is
// deterministic (no false failures). Mutant: the old rule, chance = 1/authors over all texts,
// flags 33 of 273 (P = 0.33 against 1/9) — shown below by running it — and puts 0.111 in
// the chance row; this test fails on it.
func TestAtChanceUsesTheClosedSetShare(t *testing.T) {
	l := DefaultLayout()
	l.Columns = []Column{{Scorer: "koppel11", Label: "DRauth", Task: report.TaskAuthor}}
	l.Metric = report.MetricAccuracy
	s := mustAggregate(t, openSetRows(33), l)
	if f := atChance(s, l); len(f) != 0 {
		t.Errorf("33 of 273 with 121 open-set: flagged %v, want above chance", f)
	}
	if oldP := binomialUpper(33, 273, 1.0/9); oldP < ChanceAlpha {
		t.Fatalf("the mutant (chance 1/9) gives p = %v: the fixture no longer separates the rules", oldP)
	}
	f := atChance(mustAggregate(t, openSetRows(22), l), l)
	if len(f) != 1 || math.Abs(f[0].Chance-152.0/273/9) > 1e-12 || math.Abs(f[0].P-binomialUpper(22, 273, 152.0/273/9)) > 1e-12 || f[0].P < ChanceAlpha {
		t.Errorf("22 of 273: flags %+v, want one with chance %v", f, 152.0/273/9)
	}
	md := string(buildTables(s, l).markdown(Caption{}))
	for _, want := range []string{"| chance    | – | 0.062 ", "set problem00004 121 of 273 open-set, best attainable accuracy 0.557, chance 0.062"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	// The counts and the open-set macro-F1 have their own chance levels.
	if v, ok := chance(s, "problem00004", "koppel11", report.TaskAuthor, report.MetricCorrect); !ok || math.Abs(v-152.0/9) > 1e-9 {
		t.Errorf("chance of correct = %v, %v: want 152/9", v, ok)
	}
	if v, ok := chance(s, "problem00004", "koppel11", report.TaskAuthor, report.MetricOpenSetMacroF1); !ok || math.Abs(v-OpenSetChanceF1(map[string]int{"a": 100, "b": 52}, 273, 9)) > 1e-12 {
		t.Errorf("chance of open-set macro-F1 = %v, %v", v, ok)
	}
}

// The open-set macro-F1 of a uniform guess's expected counts, by hand: 4 texts by a, 2 by b,
// 4 open-set, 2 candidates — a guess gives each candidate 5 texts, 2 of a's and 1 of b's
// right: F1(a) = 2·2/(5+4) = 4/9, F1(b) = 2·1/(5+2) = 2/7; a candidate with no text is no
// class. Mutant: averaging over all candidates (c included) gives 0.2434 and fails.
func TestOpenSetChanceF1(t *testing.T) {
	got := OpenSetChanceF1(map[string]int{"a": 4, "b": 2, "c": 0}, 10, 2)
	if want := (4.0/9 + 2.0/7) / 2; math.Abs(got-want) > 1e-12 {
		t.Errorf("OpenSetChanceF1 = %v, want %v", got, want)
	}
	if got := OpenSetChanceF1(map[string]int{"a": 0}, 3, 2); !math.IsNaN(got) {
		t.Errorf("no candidate wrote a text: %v, want NaN", got)
	}
}
