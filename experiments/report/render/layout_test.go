package render

import (
	"dptext/experiments/report"
	"math"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestLayoutDecodesFromTOML(t *testing.T) {
	doc := `
[report]
metric = "accuracy"
interval = "wilson"
plot_metrics = ["accuracy", "macro_f1"]

[[report.columns]]
scorer = "sr-nn"
label = "SRauth"
task = "author"

[[report.columns]]
scorer = "cosine"
label = "cos"
task = "utility"
metric = "mean"

[[report.references]]
set = "20"
label = "SRauth"
values = { none = 12, 30 = 8, "12.5" = 3 }

[report.frontier]
attack = "sr-nn"
utility = "cosine"
utility_metric = "mean"
`
	var cfg struct{ Report Layout }
	cfg.Report = DefaultLayout()
	md, err := toml.Decode(doc, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("undecoded keys %v", u)
	}
	l := cfg.Report
	err = l.Validate()
	// interval = "wilson" requires every column to show the table metric.
	if err == nil || !strings.Contains(err.Error(), `columns[1].metric = "mean"`) {
		t.Fatalf("Validate() = %v, want the wilson/column metric conflict named", err)
	}
	l.Interval = "t"
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	if l.Frontier.AttackMetric != "accuracy" || l.Frontier.UtilityMetric != "mean" || l.Level != 0.95 {
		t.Errorf("defaults not kept under decoded values: %+v", l.Frontier)
	}
	for _, c := range []struct {
		mech string
		eps  float64
		want float64
	}{{"none", math.NaN(), 12}, {"emd", 30, 8}, {"emd", 12.5, 3}} {
		if v, ok := l.reference("20", "SRauth", c.mech, epsOrNone(c.eps), 20); !ok || v != c.want {
			t.Errorf("reference(%s, %v) = %v, %v; want %v", c.mech, c.eps, v, ok, c.want)
		}
	}
	if _, ok := l.reference("20", "SRauth", "emd", report.EpsilonOf(25), 20); ok {
		t.Error("reference for an ε without a number")
	}
}

func TestLayoutValidateNamesKey(t *testing.T) {
	for _, c := range []struct {
		edit func(*Layout)
		want string
	}{
		{func(l *Layout) { l.Metric = "" }, "metric"},
		{func(l *Layout) { l.Interval = "z" }, `interval = "z": want "t" or "wilson"`},
		{func(l *Layout) { l.Metric = "macro_f1"; l.Interval = "wilson" }, `interval = "wilson" needs metric`},
		{func(l *Layout) { l.Level = 95 }, "level = 95"},
		{func(l *Layout) { l.Columns = nil }, "columns is empty"},
		{func(l *Layout) { l.Columns[1].Scorer = "sr-nn" }, `columns[1]: scorer "sr-nn" with metric "correct" appears twice`},
		{func(l *Layout) { l.Columns[1].Scorer, l.Columns[1].Metric = "sr-nn", "correct" }, `columns[1]: scorer "sr-nn" with metric "correct" appears twice`},
		{func(l *Layout) { l.Columns[2].Label = "" }, "columns[2].label is empty"},
		{func(l *Layout) { l.Columns[3].Task = "style" }, `columns[3].task = "style": want "author", "topic" or "utility"`},
		{func(l *Layout) { l.References = []Reference{{Set: "20", Label: "SRx"}} }, `references[0].label = "SRx": want one of the column labels "SRauth"`},
		{func(l *Layout) { l.References = []Reference{{Label: "SRauth"}} }, "references[0].set is empty"},
		{func(l *Layout) {
			l.References = []Reference{{Set: "20", Label: "SRauth", Authors: 20, Values: map[string]float64{"30": math.Inf(1)}}}
		}, "references[0].values.30"},
		{func(l *Layout) {
			l.References = []Reference{{Set: "20", Label: "SRauth", Values: map[string]float64{"none": 12}}}
		},
			`references[0].authors is not given, but column "SRauth" shows counts`},
		{func(l *Layout) { l.PlotMetrics = []string{"accuracy", "accuracy"} }, "plot_metrics[1]"},
		{func(l *Layout) { l.Frontier.Attack = "sr-nn" }, "frontier.utility is empty"},
	} {
		l := DefaultLayout()
		c.edit(&l)
		err := l.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate() = %v, want an error containing %q", err, c.want)
		}
	}
	if err := DefaultLayout().Validate(); err != nil {
		t.Errorf("default layout invalid: %v", err)
	}
}

func TestWriteRejectsScorerWithoutResults(t *testing.T) {
	l := fixtureLayout()
	l.Columns[2].Scorer = "koppel12"
	_, err := Write(t.TempDir(), fixtureRows(), l, Caption{})
	if err == nil || !strings.Contains(err.Error(), `columns[2].scorer = "koppel12": no results`) {
		t.Fatalf("Write() = %v, want an error naming columns[2].scorer", err)
	}
	l = fixtureLayout()
	l.Frontier.Utility = "bert"
	_, err = Write(t.TempDir(), fixtureRows(), l, Caption{})
	if err == nil || !strings.Contains(err.Error(), `frontier.utility = "bert"`) {
		t.Fatalf("Write() = %v, want an error naming frontier.utility", err)
	}
}

// A published count is printed only beside a set of as many authors: the 20-author set of the
// fixture shows the published 12 when the reference says 20 authors, and not when it says 50
// (the paper's other set), which the caption then names. Mutant: the check before issue 25
// (no set size) prints "(12)" beside the 20-author set in both cases.
func TestReferencesOnlyBesideSetsOfTheSameSize(t *testing.T) {
	for _, c := range []struct {
		authors int
		shown   bool
	}{{20, true}, {50, false}} {
		l := fixtureLayout()
		l.References[0].Authors = c.authors
		md := string(buildTables(mustAggregate(t, fixtureRows(), l), l).markdown(Caption{}))
		if shown := strings.Contains(md, "(12)"); shown != c.shown {
			t.Errorf("reference of a %d-author set beside the 20-author set: shown %v, want %v", c.authors, shown, c.shown)
		}
		if left := strings.Contains(md, "left out for set 20 (20 authors here, 50 in the publication)"); left == c.shown {
			t.Errorf("reference of a %d-author set: caption's left-out note present = %v:\n%s", c.authors, left, md)
		}
	}
}
