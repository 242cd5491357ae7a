package learn

import (
	"math"
	"testing"
)

func TestScoreCountsAndMacroAverages(t *testing.T) {
	truth := []string{"a", "a", "b", "b", "c"}
	pred := []string{"a", "b", "b", "b", NoAnswer}
	s := Score(truth, pred)
	if s.Correct != 3 || s.Total != 5 || s.Accuracy != 0.6 {
		t.Fatalf("counts %+v", s)
	}
	// a: p=1 r=.5 f=2/3; b: p=2/3 r=1 f=.8; c: p=0 r=0 f=0.
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	if !near(s.MacroPrecision, (1+2.0/3)/3) || !near(s.MacroRecall, 0.5) || !near(s.MacroF1, (2.0/3+0.8)/3) {
		t.Fatalf("macro scores %+v", s)
	}
}

// OpenSetMacroF1 against a hand computation: classes a (2 true) and b (1 true); "?" is the
// open-set label and no class. Predictions a, ?, a, b for truths a, a, b, ?:
// a: tp 1, predicted 2, actual 2 → P ½, R ½, F1 ½; b: tp 0 → 0. Mean ¼. A class count that
// included "?" would give 1/6.
func TestOpenSetMacroF1(t *testing.T) {
	if got := OpenSetMacroF1([]string{"a", "a", "b", "?"}, []string{"a", "?", "a", "b"}, "?"); got != 0.25 {
		t.Errorf("open-set macro-F1 = %v, want 0.25", got)
	}
	if got := OpenSetMacroF1([]string{"?"}, []string{"a"}, "?"); !math.IsNaN(got) {
		t.Errorf("only open-set truths: %v, want NaN", got)
	}
}
