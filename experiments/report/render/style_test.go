package render

import (
	"fmt"
	"strings"
	"testing"

	"dptext/experiments/report"
)

// sixteenMechanisms is a run of 16 mechanisms with ε on one set, each with 4 ε and the
// frontier's two scorers, the curves close together (the crowded corner of a real run).
func sixteenMechanisms() ([]report.Row, []string) {
	names := []string{"emd", "cmp", "mahalanobis", "vickrey", "santext", "santext+", "tem", "truncated-gumbel",
		"custext", "custext+", "syntf", "expmech-embedding", "mine-a", "mine-b", "mine-c", "mine-d"}
	var rows []report.Row
	for _, f := range []struct {
		metric string
		value  float64
	}{{"authors", 20}, {"topics", 2}, {"eval_docs", 20}} {
		rows = append(rows, report.Row{Set: "s", Scorer: report.SplitScorer, Metric: f.metric, Value: f.value})
	}
	for mi, mech := range names {
		for ei, eps := range []float64{1, 2, 5, 10} {
			for rep := range 2 {
				a := 0.05 + 0.02*float64(ei) + 0.002*float64(mi) + 0.01*float64(rep)
				u := 0.6 + 0.05*float64(ei) + 0.003*float64(mi)
				for _, sc := range []struct {
					name string
					v    float64
				}{{"koppel11", a}, {"fasttext", u}} {
					rows = append(rows, report.Row{Set: "s", Mechanism: mech, Epsilon: report.EpsilonOf(eps), Repeat: rep, Scorer: sc.name, Metric: "accuracy", Value: sc.v})
				}
			}
		}
	}
	return rows, names
}

// A figure of 16 mechanisms gives every mechanism its own (colour, marker, dash) triple and
// places no label over another. Mutants: a palette that repeats a colour (okabeIto's yellow
// replaced by its orange) fails the colour count; the fixed table with two equal entries fails
// the distinct looks; a label layer that ignores the boxes placed before fails the overlap check.
func TestSixteenMechanismsDistinctAndLabelsApart(t *testing.T) {
	rows, names := sixteenMechanisms()
	l := DefaultLayout()
	l.Metric = report.MetricAccuracy
	l.Columns = []Column{{Scorer: "koppel11", Label: "DRauth", Task: report.TaskAuthor}, {Scorer: "fasttext", Label: "DRtopic", Task: report.TaskTopic}}
	l.Frontier.Attack, l.Frontier.Utility = "koppel11", "fasttext"
	s, err := report.Aggregate(rows, l.scorerOrder(), l.Level)
	if err != nil {
		t.Fatal(err)
	}
	// A series' look: its colour's RGBA (not the palette index: a palette that repeats a colour
	// draws two indices alike), marker and dash.
	type look struct {
		r, g, b, a   uint32
		marker, dash int
	}
	lookOf := func(st Style) look {
		r, g, b, a := st.Color().RGBA()
		return look{r, g, b, a, st.Marker, st.Dash}
	}
	styles := SeriesStyles(names)
	seen := map[look]string{}
	colours := map[[4]uint32]bool{}
	for i, st := range styles {
		lk := lookOf(st)
		if other, dup := seen[lk]; dup {
			t.Errorf("%s and %s look alike: %+v", names[i], other, lk)
		}
		seen[lk] = names[i]
		colours[[4]uint32{lk.r, lk.g, lk.b, lk.a}] = true
		if _, fixed := fixedStyles[names[i]]; fixed && st != SeriesStyle(names[i]) {
			t.Errorf("%s: the figure's style %+v is not its fixed style %+v", names[i], st, SeriesStyle(names[i]))
		}
	}
	if len(colours) < len(okabeIto) {
		t.Errorf("16 mechanisms drawn in %d colours; want all %d of the palette", len(colours), len(okabeIto))
	}
	f, ok, err := frontierFigure(s, l, "s")
	if err != nil || !ok {
		t.Fatalf("frontier: ok %v, err %v", ok, err)
	}
	if len(f.panels) != 16 {
		t.Errorf("%d panels, want one per mechanism (16)", len(f.panels))
	}
	for _, p := range f.panels { // small multiples: its own curve in colour, the 15 others in grey
		if len(p.series) != 1 || p.series[0].name != p.title || len(p.behind) != 15 {
			t.Errorf("panel %s: %d series in colour, %d behind; want its own and 15 behind", p.title, len(p.series), len(p.behind))
		}
	}
	drawn := map[look]string{}
	for _, p := range f.panels {
		for _, sr := range p.series {
			st := lookOf(f.style(sr))
			if other, dup := drawn[st]; dup && other != sr.key {
				t.Errorf("the figure draws %s and %s alike: %+v", sr.key, other, st)
			}
			drawn[st] = sr.key
		}
	}
	one := &figure{title: "all in one panel", panels: []panel{{series: f.panels[0].series}}}
	for _, p := range f.panels[1:] {
		one.panels[0].series = append(one.panels[0].series, p.series[0])
	}
	for _, fig := range []*figure{f, one} {
		if _, err := fig.render("png"); err != nil {
			t.Fatal(err)
		}
		if len(fig.placed) == 0 {
			t.Fatalf("%s: no label placed", fig.title)
		}
		for i, a := range fig.placed {
			for _, b := range fig.placed[:i] {
				if overlaps(a, b) {
					t.Errorf("%s: label boxes overlap: %v and %v", fig.title, a, b)
				}
			}
		}
		t.Logf("%s: %d labels placed", fig.title, len(fig.placed))
	}
}

// Labels outside the fixed table keep their style from figure to figure (a hash of the label)
// unless two of one figure collide, and the fixed table holds distinct triples.
func TestSeriesStyleStable(t *testing.T) {
	if a, b := SeriesStyles([]string{"x", "mine-a"})[1], SeriesStyles([]string{"mine-a", "emd"})[0]; a != b || a != SeriesStyle("mine-a") {
		t.Error("a label's style depends on the figure")
	}
	seen := map[Style]string{}
	for name, st := range fixedStyles {
		if other, dup := seen[st]; dup {
			t.Errorf("fixed styles of %s and %s are equal", name, other)
		}
		seen[st] = name
	}
	many := make([]string, 100)
	for i := range many {
		many[i] = fmt.Sprintf("m%d", i)
	}
	got := map[Style]bool{}
	for _, st := range SeriesStyles(many) {
		got[st] = true
	}
	if len(got) != len(many) {
		t.Errorf("%d labels got %d styles", len(many), len(got))
	}
}

// A log ε axis with a point at ε = 0 (a hand-made results.csv) is drawn linear instead of
// failing. Mutant: without linearWhereNotPositive the render fails (gonum's LogScale panics on
// 0, which render reports as a failed drawing).
func TestLogAxisWithZeroFallsBackToLinear(t *testing.T) {
	var pts errPoints
	pts.add(0, 0.5, 0, 0)
	pts.add(10, 0.6, 0, 0)
	f := &figure{title: "t", xLabel: "ε", logX: true, panels: []panel{{series: []series{{key: "emd", name: "emd", pts: pts}}}}}
	if _, err := f.render("png"); err != nil {
		t.Fatal(err)
	}
	if f.logX || !strings.Contains(f.xLabel, "linear") {
		t.Errorf("logX %v, label %q", f.logX, f.xLabel)
	}
}

// The accuracy figure tells mechanisms apart by colour and never puts the ε of several
// mechanisms (perhaps of different units) on one linear axis: with a few mechanisms, one panel
// per scorer with a log ε axis and a colour per mechanism; with 16, one panel per mechanism on
// its own ε axis. Mutants: all curves of a panel in one colour (the scorer's, before issue 45)
// and a linear shared axis each fail.
func TestAccuracyFigureColoursAndAxes(t *testing.T) {
	rows, _ := sixteenMechanisms()
	l := DefaultLayout()
	l.Metric = report.MetricAccuracy
	l.Columns = []Column{{Scorer: "koppel11", Label: "DRauth", Task: report.TaskAuthor}, {Scorer: "fasttext", Label: "DRtopic", Task: report.TaskTopic}}
	var few []report.Row
	for _, r := range rows {
		if r.Mechanism == "" || r.Mechanism == "emd" || r.Mechanism == "santext" || r.Mechanism == "syntf" {
			few = append(few, r)
		}
	}
	f, ok, err := metricFigure(mustAggregate(t, few, l), l, "s", report.MetricAccuracy)
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	if len(f.panels) != 2 || !f.logX || f.ownX {
		t.Errorf("3 mechanisms: %d panels, logX %v, ownX %v; want one panel per scorer (2) on a shared log axis", len(f.panels), f.logX, f.ownX)
	}
	for _, p := range f.panels {
		colours := map[int]string{}
		for _, s := range p.series {
			if other, dup := colours[f.style(s).Colour]; dup {
				t.Errorf("panel %s: %s and %s in one colour", p.title, s.key, other)
			}
			colours[f.style(s).Colour] = s.key
		}
		if len(colours) != 3 {
			t.Errorf("panel %s: %d colours for 3 mechanisms", p.title, len(colours))
		}
	}
	f, ok, err = metricFigure(mustAggregate(t, rows, l), l, "s", report.MetricAccuracy)
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	if len(f.panels) != 16 || !f.ownX {
		t.Errorf("16 mechanisms: %d panels, ownX %v; want one panel per mechanism, each on its own ε axis", len(f.panels), f.ownX)
	}
	for _, p := range f.panels {
		for _, s := range p.series {
			if want := SeriesStyle(p.title).Colour; f.style(s).Colour != want {
				t.Errorf("panel %s: scorer %s not in the mechanism's colour", p.title, s.name)
			}
		}
	}
	if _, err := f.render("png"); err != nil {
		t.Fatal(err)
	}
}
