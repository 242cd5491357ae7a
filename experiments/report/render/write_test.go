package render

import (
	"bytes"
	"dptext/experiments/report"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"

	"dptext/internal/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenTables writes the fixture run and compares table.md, table.csv and table.tex with the
// committed files in testdata/ (go test ./experiments/report/render -update rewrites them).
func TestGoldenTables(t *testing.T) {
	dir := t.TempDir()
	caption := Caption{Title: "fixture run", Notes: []string{"Synthetic rows shaped like Table 1."}}
	if _, err := Write(dir, fixtureRows(), fixtureLayout(), caption); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"table.md", "table.csv", "table.tex", "summary.csv"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "golden-"+name)
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./experiments/report/render -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (go test ./experiments/report/render -update rewrites it):\n%s", name, golden, got)
		}
	}
}

func TestTableCells(t *testing.T) {
	s, err := report.Aggregate(fixtureRows(), fixtureLayout().scorerOrder(), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	md := string(buildTables(s, fixtureLayout()).markdown(Caption{}))
	for _, want := range []string{
		"| none      | –  | 12 ± 0.0 (12) |", // none first, paper's number beside
		"| emd       | 10 | 0.6 ± 1.1 (0) |", // clipped at 0: values 0,0,0,1,2
		"| chance    | –  | 1             | 10          | 1          | 10          | 1          | 25 ",
		"Set 20: 20 authors, 2 topics, N = 420 words, 20 evaluation documents",
		"| emd       | 30 | 12600 ± 0.0 | 0.841 ± 0.010 |", // ε·N = 30·420
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "| emd       | 30 |") > strings.Index(md, "| emd       | 10 |") {
		t.Error("ε not in descending order")
	}
	l := fixtureLayout()
	l.Interval = "wilson"
	md = string(buildTables(s, l).markdown(Caption{}))
	// SRauth at ε = 10 in set 20: 3 correct of 100 pooled; Wilson 95 % [0.0103, 0.0845] × 20.
	lo, hi := stats.Wilson(3, 100, 0.95)
	if want := "0.6 [" + strconv.FormatFloat(20*lo, 'f', 1, 64) + ", " + strconv.FormatFloat(20*hi, 'f', 1, 64) + "] (0)"; !strings.Contains(md, want) {
		t.Errorf("wilson table lacks %q:\n%s", want, md)
	}
}

func TestPlotsWritten(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, fixtureRows(), fixtureLayout(), Caption{}); err != nil {
		t.Fatal(err)
	}
	pixels := func(l vg.Length) int { return int(float64(l/vg.Inch)*vgimg.DefaultDPI + 0.5) }
	wantW, wantH := pixels(figureWidth), pixels(figureHeight)
	for _, base := range []string{"accuracy-20", "accuracy-50", "frontier-20", "frontier-50"} {
		f, err := os.Open(filepath.Join(dir, base+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s.png: %v", base, err)
		}
		if b := img.Bounds(); strings.HasPrefix(base, "frontier") && (b.Dx() != wantW || b.Dy() != wantH) {
			t.Errorf("%s.png is %dx%d, want %dx%d", base, b.Dx(), b.Dy(), wantW, wantH)
		} else if b.Dx() < wantW/2 || b.Dy() < wantH/2 {
			t.Errorf("%s.png is only %dx%d", base, b.Dx(), b.Dy())
		}
		pdf, err := os.ReadFile(filepath.Join(dir, base+".pdf"))
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) || len(pdf) < 1000 {
			t.Errorf("%s.pdf: %d bytes, err %v", base, len(pdf), err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// privacy_metrics picks and orders the columns of the privacy table.
func TestPrivacyMetricsSelectColumns(t *testing.T) {
	l := fixtureLayout()
	all := buildTables(mustAggregate(t, fixtureRows(), l), l).privacy.columns
	if len(all) < 2 {
		t.Fatalf("fixture has %d privacy columns; the test needs two", len(all))
	}
	l.PrivacyMetrics = []string{all[1].Metric}
	got := buildTables(mustAggregate(t, fixtureRows(), l), l).privacy.columns
	for _, c := range got {
		if c.Metric != all[1].Metric {
			t.Fatalf("privacy_metrics = %v kept column %+v", l.PrivacyMetrics, c)
		}
	}
	if len(got) == 0 || len(got) >= len(all) {
		t.Fatalf("%d of %d columns kept", len(got), len(all))
	}
}

func mustAggregate(t *testing.T, rows []report.Row, l Layout) *report.Summary {
	t.Helper()
	s, err := report.Aggregate(rows, l.scorerOrder(), l.Level)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
