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
