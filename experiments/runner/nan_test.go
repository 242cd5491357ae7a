package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/experiments/report"
	"dptext/experiments/report/compare"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

// With vectors for no evaluation word (here two words the corpus never uses; top_k = 1 did the
// same with the default data), cosine scores no pair: the run ends with no NaN in results.csv —
// the cell's mean is left out, its unscored row counts every document and the log says so — and
// compare accepts the run against itself (it refused it as damaged when the mean was NaN). The
// mutant: writing sum/n with n = 0 puts "NaN" in results.csv and fails compare.
func TestUtilityWithoutAnyScoredPairWritesNoNaN(t *testing.T) {
	corpusPath, _ := fixtures.Corpus(t, 3, 2, 400)
	vecPath := filepath.Join(t.TempDir(), "vectors.txt")
	if err := os.WriteFile(vecPath, []byte("zzzq 1 0\nyyyq 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `name = "no-vectors"
seed = 3
repeats = 2
` + fixtures.Inputs(corpusPath, vecPath) + `[[sets]]
name = "4"
authors = 4
[[mechanisms]]
name = "none"
[[scorers]]
name = "cosine"
`
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "c.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log bytes.Buffer
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: out, DataDir: t.TempDir(), Log: &log}); err != nil {
		t.Fatal(err)
	}
	csv := readFile(t, filepath.Join(out, "results.csv"))
	if strings.Contains(strings.ToLower(csv), "nan") {
		t.Fatalf("results.csv holds NaN:\n%s", csv)
	}
	rows, err := report.ReadRowsFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	unscored := 0
	for _, r := range rows {
		switch {
		case r.Scorer == "cosine" && r.Metric == report.MetricMean:
			t.Errorf("a cosine mean without any scored pair: %+v", r)
		case r.Scorer == "cosine" && r.Metric == report.MetricUnscored:
			unscored++
			if r.Value == 0 {
				t.Errorf("unscored = 0 though no pair has a vector: %+v", r)
			}
		}
	}
	if unscored != 2 {
		t.Errorf("%d unscored rows, want one per repeat", unscored)
	}
	if !strings.Contains(log.String(), "scored none of the") {
		t.Errorf("the log does not say that no pair was scored:\n%s", log.String())
	}
	if v, err := compare.Runs(rows, rows, compare.DefaultOptions()); err != nil || !v.OK() {
		t.Errorf("compare of the run with itself: %v, %v", v, err)
	}
}
