package compare

import (
	"dptext/experiments/report"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"dptext/internal/rngs"
)

// countRows gives one scorer's correct/total/accuracy rows over repeats with the given counts.
func countRows(set, scorer string, eps float64, correct []float64, total float64) []report.Row {
	var rows []report.Row
	for rep, c := range correct {
		for _, m := range []struct {
			metric string
			v      float64
		}{{"correct", c}, {"total", total}, {"accuracy", c / total}} {
			rows = append(rows, report.Row{Set: set, Mechanism: "emd", Epsilon: epsOrNone(eps), Repeat: rep, Scorer: scorer, Metric: m.metric, Value: m.v})
		}
	}
	return rows
}

// replaceCell swaps the rows of one (set, mechanism, ε, scorer) for others.
func replaceCell(rows []report.Row, set, mech string, eps float64, scorer string, with []report.Row) []report.Row {
	out := slices.DeleteFunc(slices.Clone(rows), func(r report.Row) bool {
		return r.Set == set && r.Mechanism == mech && r.Epsilon == epsOrNone(eps) && r.Scorer == scorer
	})
	return append(out, with...)
}

func TestCompareIdenticalRunsMoveNothing(t *testing.T) {
	v, err := Runs(fixtureRows(t), fixtureRows(t), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() || len(v.Tested) == 0 {
		t.Fatalf("identical runs: %s", v)
	}
	for _, c := range v.Tested {
		if c.Key.Metric == "accuracy" && c.Key.Scorer == "sr-nn" {
			t.Fatalf("accuracy with counts tested on its own: %+v", c)
		}
	}
}

func TestCompareFlagsLargeShift(t *testing.T) {
	// Accuracy 0.8 → 0.2 over 5 repeats of 20 documents.
	base := replaceCell(fixtureRows(t), "20", "emd", 20, "sr-nn", countRows("20", "sr-nn", 20, []float64{16, 16, 17, 15, 16}, 20))
	run := replaceCell(fixtureRows(t), "20", "emd", 20, "sr-nn", countRows("20", "sr-nn", 20, []float64{4, 3, 4, 5, 4}, 20))
	v, err := Runs(base, run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	moved := v.Moved()
	if len(moved) != 1 || moved[0].Key.String() != "20/emd/20/sr-nn/correct" || moved[0].Method != MethodFisher {
		t.Fatalf("moved = %+v, want only 20/emd/20/sr-nn/correct by Fisher's test\n%s", moved, v)
	}
	if moved[0].Baseline != 16 || moved[0].Run != 4 || moved[0].AdjustedP > 1e-10 {
		t.Errorf("moved cell %+v", moved[0])
	}
	if s := v.String(); !strings.HasPrefix(s, "FAIL") || !strings.Contains(s, "moved     20/emd/20/sr-nn/correct: baseline 16 (n=5), run 4 (n=5), fisher p=") {
		t.Errorf("verdict text:\n%s", s)
	}
}

func TestCompareIgnoresNoise(t *testing.T) {
	base := replaceCell(fixtureRows(t), "50", "emd", 15, "koppel11", countRows("50", "koppel11", 15, []float64{15, 16, 17, 16, 16}, 20))
	run := replaceCell(fixtureRows(t), "50", "emd", 15, "koppel11", countRows("50", "koppel11", 15, []float64{16, 15, 14, 17, 15}, 20))
	var f1 []report.Row
	for rep, pair := range [][2]float64{{0.50, 0.51}, {0.52, 0.49}, {0.48, 0.50}, {0.51, 0.52}, {0.49, 0.47}} {
		f1 = append(f1, report.Row{Set: "50", Mechanism: "emd", Epsilon: report.EpsilonOf(15), Repeat: rep, Scorer: "koppel11", Metric: "macro_f1", Value: pair[0]})
		run = append(run, report.Row{Set: "50", Mechanism: "emd", Epsilon: report.EpsilonOf(15), Repeat: rep, Scorer: "koppel11", Metric: "macro_f1", Value: pair[1]})
	}
	base = append(base, f1...)
	v, err := Runs(base, run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK() {
		t.Fatalf("within-noise shift flagged:\n%s", v)
	}
	// The same F1 shifted by 0.3 is far outside the repeat noise.
	for i := range run {
		if run[i].Metric == "macro_f1" {
			run[i].Value -= 0.3
		}
	}
	v, err = Runs(base, run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if m := v.Moved(); len(m) != 1 || m[0].Method != MethodWelch || m[0].Key.Metric != "macro_f1" {
		t.Fatalf("F1 shift of 0.3: %s", v)
	}
}

// TestCompareFalseAlarmRate compares independent binomial runs with equal success
// probabilities: 40 cells of 5 repeats × 20 documents. The family-wise false-alarm rate is at
// most α = 0.01 (Fisher's test is conservative), so this fixed-seed test would fail for at most
// 1 % of seeds.
func TestCompareFalseAlarmRate(t *testing.T) {
	rng := rngs.New(7, "report/compare-false-alarm")
	draw := func(p float64) []float64 {
		out := make([]float64, 5)
		for i := range out {
			for range 20 {
				if rng.Float64() < p {
					out[i]++
				}
			}
		}
		return out
	}
	var base, run []report.Row
	for i := range 40 {
		p := 0.05 + 0.9*float64(i)/39
		base = append(base, countRows("s", "a", float64(i+1), draw(p), 20)...)
		run = append(run, countRows("s", "a", float64(i+1), draw(p), 20)...)
	}
	v, err := Runs(base, run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Tested) != 40 || !v.OK() {
		t.Fatalf("noise-only runs: %d tested\n%s", len(v.Tested), v)
	}
}

func TestCompareReportsMissingCellsAndProtocol(t *testing.T) {
	base := fixtureRows(t)
	run := slices.DeleteFunc(slices.Clone(base), func(r report.Row) bool {
		return r.Set == "50" && r.Epsilon == report.EpsilonOf(10) && r.Scorer == "fasttext" && r.Metric == "accuracy"
	})
	run = append(run, report.Row{Set: "50", Mechanism: "scrub", Scorer: "sr-nn", Metric: "correct", Value: 3})
	for i := range run {
		if run[i].Scorer == report.SplitScorer && run[i].Set == "20" && run[i].Metric == "n_words" {
			run[i].Value = 380
		}
	}
	v, err := Runs(base, run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := keysText(v.OnlyInBaseline); !reflect.DeepEqual(got, []string{"50/emd/10/fasttext/accuracy"}) {
		t.Errorf("only in baseline = %v", got)
	}
	if got := keysText(v.OnlyInRun); !reflect.DeepEqual(got, []string{"50/scrub//sr-nn/correct"}) {
		t.Errorf("only in run = %v", got)
	}
	if len(v.Protocol) != 1 || v.Protocol[0].Key.Metric != "n_words" || v.Protocol[0].Run != 380 {
		t.Errorf("protocol = %+v", v.Protocol)
	}
	s := v.String()
	for _, want := range []string{"protocol  20///split/n_words: baseline 420, run 380", "missing   50/emd/10/fasttext/accuracy: only in baseline", "new       50/scrub//sr-nn/correct: only in run"} {
		if !strings.Contains(s, want) {
			t.Errorf("verdict lacks %q:\n%s", want, s)
		}
	}
}

func keysText(ks []report.Key) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.String())
	}
	return out
}

func TestAdjust(t *testing.T) {
	ps := []float64{0.01, 0.04, 0.03, 0.005}
	for _, c := range []struct {
		correction string
		want       []float64
	}{
		{"holm", []float64{0.03, 0.06, 0.06, 0.02}},
		{"bonferroni", []float64{0.04, 0.16, 0.12, 0.02}},
	} {
		cs := make([]Change, len(ps))
		for i, p := range ps {
			cs[i].P = p
		}
		adjust(cs, c.correction)
		for i, ch := range cs {
			if math.Abs(ch.AdjustedP-c.want[i]) > 1e-12 {
				t.Errorf("%s: adjusted p[%d] = %v, want %v", c.correction, i, ch.AdjustedP, c.want[i])
			}
		}
	}
}

func TestCompareOptionsValidate(t *testing.T) {
	o := DefaultOptions()
	o.Correction = "sidak"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `correction = "sidak"`) {
		t.Errorf("Validate() = %v", err)
	}
	o = DefaultOptions()
	o.Alpha = 0
	if _, err := Runs(nil, nil, o); err == nil || !strings.Contains(err.Error(), "alpha = 0") {
		t.Errorf("Compare with alpha 0: %v", err)
	}
}

// A repeat lost on one side (a missing cell file) fails the comparison and is named, even
// though the cell's other repeats agree.
func TestCompareReportsMissingRepeats(t *testing.T) {
	base := replaceCell(fixtureRows(t), "20", "emd", 20, "sr-nn", countRows("20", "sr-nn", 20, []float64{16, 16, 17, 15, 16}, 20))
	run := replaceCell(fixtureRows(t), "20", "emd", 20, "sr-nn", countRows("20", "sr-nn", 20, []float64{16, 16, 17, 15}, 20))
	v, err := Runs(base, run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if v.OK() || len(v.RepeatsOnlyInBaseline) != 3 || len(v.RepeatsOnlyInRun) != 0 {
		t.Fatalf("a missing repeat passed: %s", v)
	}
	if !strings.Contains(v.String(), "missing   20/emd/20/sr-nn/correct repeat 4: only in baseline") {
		t.Fatalf("verdict does not name the repeat:\n%s", v)
	}
}
