package compare

import (
	"strings"
	"testing"

	"dptext/experiments/report"
	"dptext/internal/stats"
)

// auditViolationRows gives one audit_violations row per repeat.
func auditViolationRows(values ...float64) []report.Row {
	var rows []report.Row
	for rep, v := range values {
		rows = append(rows, report.Row{Set: "8", Mechanism: "emd", Epsilon: report.EpsilonOf(10), Repeat: rep, Scorer: "privacy", Metric: report.MetricAuditViolations, Value: v},
			report.Row{Set: "8", Mechanism: "emd", Epsilon: report.EpsilonOf(10), Repeat: rep, Scorer: "privacy", Metric: "epsilon_doc", Value: 100})
	}
	return rows
}

// An audit that passed in the baseline (no violation in any repeat) and fails in the run is a
// hard failure; one that failed in both, or only in the baseline, is not. Deterministic.
// Mutant: without the audit case audit_violations is an ordinary cell without spread: the
// first case is then no audit failure and the second a moved cell, and both fail here.
func TestCompareFailsAnAuditThatPassedInTheBaseline(t *testing.T) {
	for _, tc := range []struct {
		base, run []float64
		fails     bool
	}{
		{[]float64{0, 0, 0}, []float64{0, 2, 0}, true},
		{[]float64{1, 1, 1}, []float64{3, 3, 3}, false},
		{[]float64{1, 0, 0}, []float64{0, 0, 0}, false},
		{[]float64{0, 0, 0}, []float64{0, 0, 0}, false},
	} {
		v, err := Runs(auditViolationRows(tc.base...), auditViolationRows(tc.run...), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if got := len(v.Audits) > 0; got != tc.fails || v.OK() == tc.fails {
			t.Errorf("baseline %v, run %v: audits failing %d, OK %v; want failing %v\n%s", tc.base, tc.run, len(v.Audits), v.OK(), tc.fails, v)
		}
		if tc.fails && !strings.Contains(v.String(), "audit     8/emd/10/privacy/audit_violations: passed in the baseline, fails in the run") {
			t.Errorf("the verdict does not name the failing audit:\n%s", v)
		}
	}
}

// The thresholds --power prints are the smallest changes the tests flag: that many is flagged
// (in both directions), one count less is not (in one at least): Fisher on 24 items at one
// test's α = 0.01 (and none at all at ci.toml's α/m), paired counts on ci.toml's ε = 10 cell
// at α/m. Mutant: the paired threshold taken in the easier direction (min for max) fails.
func TestPowerThresholdsAreTheSmallestFlagged(t *testing.T) {
	if k := fisherThreshold(12, 24, 0.01/167); k != 25 {
		t.Errorf("12 of 24 at α/m: threshold %v, want 25 (no change of 24 items is flagged)", k)
	}
	level := 0.01
	k := int(fisherThreshold(12, 24, level))
	if k > 24 {
		t.Fatalf("no Fisher threshold for 12 of 24")
	}
	flagged := func(r int) bool { return stats.FisherExact(12, 12, r, 24-r) <= level }
	up, below := flagged(12+k), k > 1 && flagged(12+k-1)
	if !up || below {
		t.Errorf("Fisher threshold %d of 24: flagged at it %v, one below %v; want true, false", k, up, below)
	}
	kb, n := []float64{1974, 1931, 1963}, []float64{3302, 3302, 3302}
	fisherLevel := level
	level = 0.01 / 167
	d := pairedThreshold(kb, n, level)
	shift := func(t, dir float64) []float64 {
		out := make([]float64, 3)
		for i := range kb {
			out[i] = kb[i] + dir*float64(int(t)/3)
			if i < int(t)%3 {
				out[i] += dir
			}
		}
		return out
	}
	flaggedBoth := func(t float64) bool {
		return pairedBinomialP(kb, shift(t, 1), n) <= level && pairedBinomialP(kb, shift(t, -1), n) <= level
	}
	if !flaggedBoth(d) || flaggedBoth(d-1) {
		t.Errorf("paired threshold %v words: flagged both ways at it %v, one below %v; want true, false", d, flaggedBoth(d), flaggedBoth(d-1))
	}
	t.Logf("smallest changes flagged: Fisher %d of 24 at %g; paired %v of 9906 words (%.4f) at %.2g", k, fisherLevel, d, d/9906, level)
}
