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
