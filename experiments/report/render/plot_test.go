package render

import (
	"dptext/experiments/report"
	"math"
	"reflect"
	"testing"
)

// Plots clip the t interval of a proportion at 0 and 1 and say so; other metrics keep theirs.
// Mutant: symmetric bars (before issue 25) draw 0.95 ± 0.1 up to 1.05.
func TestPlotIntervalsClippedToProportions(t *testing.T) {
	var p errPoints
	p.add(0, 0.95, 0, 0.1)
	p.add(1, 0.5, 0, 0.1)
	p.add(2, 0.02, 0, 0.1)
	if !p.clip(false, true) {
		t.Fatal("no bar reported clipped")
	}
	for i, want := range [][2]float64{{0.1, 0.05}, {0.1, 0.1}, {0.02, 0.1}} {
		lo, hi := p.YError(i)
		if math.Abs(lo-want[0]) > 1e-12 || math.Abs(hi-want[1]) > 1e-12 {
			t.Errorf("point %d: bars (%v, %v), want %v", i, lo, hi, want)
		}
	}
	if !proportion(report.MetricAccuracy) || !proportion("unchanged_share") || proportion(report.MetricCorrect) || proportion("mean") {
		t.Error("proportion() misclassifies metrics")
	}
}

// On the frontier, none and none-bag at the same point are one marker labelled with both;
// a mechanism elsewhere keeps its own. Mutant: drawing each (before issue 25) hides none under
// none-bag, which this grouping reports as shown = [none, none-bag].
func TestFrontierCoincidingMechanisms(t *testing.T) {
	cells := map[string][2]report.Cell{
		"none":     {{Mean: 0.9, HalfWidth: 0.1}, {Mean: 0.5, HalfWidth: 0.2}},
		"none-bag": {{Mean: 0.9, HalfWidth: 0.1}, {Mean: 0.5, HalfWidth: 0.2}},
		"scrub":    {{Mean: 0.7, HalfWidth: 0.1}, {Mean: 0.5, HalfWidth: 0.2}},
	}
	shown, same := coinciding([]string{"none", "none-bag", "scrub", "absent"}, func(m string) (report.Cell, report.Cell, bool) {
		c, ok := cells[m]
		return c[0], c[1], ok
	})
	if !reflect.DeepEqual(shown, []string{"none", "scrub"}) || !reflect.DeepEqual(same, map[string][]string{"none": {"none-bag"}}) {
		t.Errorf("shown %v, same %v", shown, same)
	}
}
