package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

// TestTrainingDataWithoutTheModel checks that the training documents load from a config whose
// erae mechanism names a model that does not exist yet (the file the training is about to
// write: `dptext train erae --config configs/erae.toml` on a checkout without the models),
// that they leave out every evaluation author, and that a run of the same config still refuses
// the missing model by name.
func TestTrainingDataWithoutTheModel(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 5, 2, 300)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "erae.toml")
	src := `name = "train"
seed = 3
` + fixtures.Inputs(corpusPath, vecPath) + `[[sets]]
name = "4"
authors = 4
[[mechanisms]]
name = "erae"
epsilons = [40]
[mechanisms.params]
model = "not-yet.model"
[[scorers]]
name = "cosine"
`
	if err := os.WriteFile(cfgPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := runconfig.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	td, err := LoadTrainingData(context.Background(), cfg, t.TempDir(), func(string, ...any) {})
	if err != nil {
		t.Fatalf("training data of a config whose model is not written yet: %v", err)
	}
	if td.Excluded != 4 || len(td.Authors) != 6 || len(td.Docs) != 12 {
		t.Errorf("training data: %d authors (%d documents), %d excluded; want the 6 authors outside the set of 4, 12 documents", len(td.Authors), len(td.Docs), td.Excluded)
	}
	_, err = Run(context.Background(), cfg, RunOptions{OutDir: filepath.Join(dir, "out"), DataDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "not-yet.model") {
		t.Errorf("run with the model missing: error %v, want one naming not-yet.model", err)
	}
}
