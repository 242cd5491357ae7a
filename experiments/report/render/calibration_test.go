package render

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dptext/experiments/report"
)

// TestCalibrationFigures: rows of the distinguishing game give one calibration plot per set and
// distance (and none without them), its files are recognised as the run's figures, and the
// privacy table's caption describes a distinguish column.
func TestCalibrationFigures(t *testing.T) {
	rows := fixtureRows()
	for _, set := range []string{"20", "50"} {
		for rep := range 5 {
			for _, p := range []struct {
				mech string
				eps  float64
				lcb  float64
			}{{"none", math.NaN(), 4.6}, {"emd", 30, 2.1}, {"emd", 10, 0.4}} {
				e := report.NoEpsilon
				if !math.IsNaN(p.eps) {
					e = report.EpsilonOf(p.eps)
				}
				for _, m := range []struct {
					suffix string
					v      float64
				}{{"_lcb", p.lcb}, {"_ucb", p.lcb + 0.5}, {"_ceiling", 4.6}, {"", p.lcb + 0.2}} {
					rows = append(rows, report.Row{Set: set, Mechanism: p.mech, Epsilon: e, Repeat: rep, Scorer: report.PrivacyScorer,
						Metric: "distinguish_eps_k5" + m.suffix, Value: m.v + 0.01*float64(rep)})
				}
			}
		}
	}
	dir := t.TempDir()
	l := fixtureLayout()
	l.PrivacyMetrics = []string{"distinguish_eps_k5_lcb"}
	written, err := Write(dir, rows, l, Caption{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"distinguish-k5-20.png", "distinguish-k5-50.pdf"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Size() < 1000 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
		if !slices.Contains(written, name) {
			t.Errorf("Write did not list %s among the files it wrote (a rerun would not remove it)", name)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "5 words changed, its one-sided lower confidence bound") {
		t.Errorf("the privacy caption does not describe distinguish_eps_k5_lcb:\n%s", md)
	}
	plain := t.TempDir()
	if _, err := Write(plain, fixtureRows(), fixtureLayout(), Caption{}); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(plain, "distinguish-*")); len(m) > 0 {
		t.Errorf("calibration plots %v without distinguish rows", m)
	}
}

// The frontier on the empirical axis puts each mechanism's utility at its empirical ε estimate,
// bars from the lower to the upper bound; a release told apart every time (no estimate row:
// infinite) stands at its lower bound, ringed; an infinite upper bound (no row) is a bar to the
// axis's end, never the mean of the finite repeats; the ceiling is a vertical line; there is one
// figure per distance and utility. Mutants: x at the lower bound instead of the estimate, and
// the repeat count check dropped (a mean over the finite repeats), each fail.
func TestEmpiricalFrontier(t *testing.T) {
	rows := fixtureRows()
	for rep := range 5 {
		add := func(mech string, eps float64, suffix string, v float64) {
			e := report.NoEpsilon
			if !math.IsNaN(eps) {
				e = report.EpsilonOf(eps)
			}
			rows = append(rows, report.Row{Set: "20", Mechanism: mech, Epsilon: e, Repeat: rep, Scorer: report.PrivacyScorer, Metric: "distinguish_eps_k5" + suffix, Value: v})
		}
		add("none", math.NaN(), "_lcb", 4.6)
		add("none", math.NaN(), "_ceiling", 4.6)
		for _, eps := range []float64{30, 25, 20, 15, 10} {
			add("emd", eps, "_lcb", eps/10)
			add("emd", eps, "_ceiling", 4.6)
			if eps != 30 || rep < 2 { // ε = 30: infinite in 3 of 5 repeats
				add("emd", eps, "", eps/10+0.2)
			}
			if eps != 25 || rep == 0 { // ε = 25: the upper bound infinite in 4 of 5 repeats
				add("emd", eps, "_ucb", eps/10+0.5)
			}
		}
	}
	l := fixtureLayout()
	l.Utilities = []string{"fasttext", "sr-knn-topic"}
	s := mustAggregate(t, rows, l)
	figs, err := empiricalFrontierFigures(s, l, "20")
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 || figs["frontier-empirical-k5-fasttext-20"] == nil || figs["frontier-empirical-k5-sr-knn-topic-20"] == nil {
		t.Fatalf("figures %v, want one per utility at k5", figs)
	}
	f := figs["frontier-empirical-k5-fasttext-20"]
	p := f.panels[0]
	var emd, none *series
	for i := range p.series {
		switch p.series[i].key {
		case "emd":
			emd = &p.series[i]
		case "none":
			none = &p.series[i]
		}
	}
	if emd == nil || none == nil || !none.reference || !none.saturated[0] || none.pts.x[0] != 4.6 {
		t.Fatalf("series emd %+v, none %+v", emd, none)
	}
	// ascending ε: 10, 15, 20, 25, 30
	for i, eps := range []float64{10, 15, 20, 25} {
		if math.Abs(emd.pts.x[i]-(eps/10+0.2)) > 1e-9 || math.Abs(emd.pts.xlo[i]-0.2) > 1e-9 || emd.saturated[i] {
			t.Errorf("emd ε = %v: x %v − %v, saturated %v; want the estimate %v with its bar to the lower bound", eps, emd.pts.x[i], emd.pts.xlo[i], emd.saturated[i], eps/10+0.2)
		}
	}
	if math.Abs(emd.pts.xhi[0]-0.3) > 1e-9 || !math.IsInf(emd.pts.xhi[3], 1) {
		t.Errorf("upper bars %v: want 0.3 at ε = 10 and +Inf (to the axis's end) at ε = 25", emd.pts.xhi)
	}
	if !emd.saturated[4] || math.Abs(emd.pts.x[4]-3) > 1e-9 {
		t.Errorf("emd ε = 30, infinite in 3 of 5 repeats: x %v, saturated %v; want its lower bound 3, ringed", emd.pts.x[4], emd.saturated[4])
	}
	ceiling := false
	for _, r := range p.lines {
		ceiling = ceiling || (r.vertical && r.at == 4.6)
	}
	if !ceiling {
		t.Errorf("no vertical ceiling line among %+v", p.lines)
	}
	if _, err := f.render("png"); err != nil {
		t.Fatal(err)
	}
}
