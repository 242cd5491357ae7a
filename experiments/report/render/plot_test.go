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

// Table 1's figure shows the published numbers beside ours: in set 20 the SRauth panel has the
// paper's counts as accuracies (count / the published set's 20 authors) at their ε; in set 50
// only the numbers of a published set of 50 authors are shown. Mutants: the counts plotted unscaled (12
// instead of 0.6) and the authors check of Layout.reference dropped each fail.
func TestTable1FigureShowsPublishedNumbers(t *testing.T) {
	l := fixtureLayout()
	l.References = append(l.References,
		Reference{Set: "50", Label: "SRauth", Authors: 20, Values: map[string]float64{"30": 8}},            // of another set size: left out
		Reference{Set: "50", Label: "DRauth", Authors: 50, Values: map[string]float64{"30": 29, "10": 10}}) // 50 authors: shown
	s := mustAggregate(t, fixtureRows(), l)
	published := func(set, panel string) map[float64]float64 {
		f, ok, err := metricFigure(s, l, set, report.MetricAccuracy)
		if err != nil || !ok {
			t.Fatalf("set %s: ok %v, err %v", set, ok, err)
		}
		out := map[float64]float64{}
		for _, p := range f.panels {
			for _, sr := range p.series {
				if sr.key == "published" {
					if p.title != panel {
						t.Errorf("set %s: published numbers in panel %s, want %s", set, p.title, panel)
					}
					for i := range sr.pts.x {
						out[sr.pts.x[i]] = sr.pts.y[i]
					}
				}
			}
		}
		return out
	}
	f, _, err := metricFigure(s, l, "20", report.MetricAccuracy)
	if err != nil {
		t.Fatal(err)
	}
	noneLine := false
	for _, r := range f.panels[0].lines {
		noneLine = noneLine || (r.name == "published: none" && math.Abs(r.at-12.0/20) < 1e-12)
	}
	if f.panels[0].title != "SRauth" || !noneLine {
		t.Errorf("set 20: first panel %s, lines %+v; want SRauth with the published none (12 of 20) at 0.6", f.panels[0].title, f.panels[0].lines)
	}
	want := map[float64]float64{30: 8.0 / 20, 25: 8.0 / 20, 20: 5.0 / 20, 15: 2.0 / 20, 10: 0}
	if got := published("20", "SRauth"); !reflect.DeepEqual(got, want) {
		t.Errorf("set 20: published points %v, want %v", got, want)
	}
	if got, want := published("50", "DRauth"), map[float64]float64{30: 29.0 / 50, 10: 10.0 / 50}; !reflect.DeepEqual(got, want) {
		t.Errorf("set 50: published points %v, want %v", got, want)
	}
}
