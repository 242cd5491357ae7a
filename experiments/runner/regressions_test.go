package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/experiments/runreport"
	"dptext/internal/configfile"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms/erae"
)

// `dptext report RUN_DIR` needs only the run folder: with the corpus and embeddings gone (as
// on another machine, or from another directory where the config's relative paths resolve
// elsewhere) the tables are rewritten from results.csv and the manifest.
func TestRereportNeedsOnlyTheRunFolder(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 1, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, filepath.Join(dir, "table.md"))
	if err := os.Remove(filepath.Join(dir, "table.md")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{corpusPath, vecPath} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := runreport.Rereport(dir); err != nil {
		t.Fatalf("report without the inputs: %v", err)
	}
	if after := readFile(t, filepath.Join(dir, "table.md")); after != before {
		t.Errorf("rewritten table differs:\n%s\nwant\n%s", after, before)
	}
}

// A parameter value a constructor rejects stops `run` at once, before any data is loaded,
// naming the file, line and key, and leaves no run folder behind.
func TestRunRejectsBadParameterValuesBeforeLoading(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 2, 1, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	src := strings.Replace(cfg.Text, "[[scorers]]\nname = \"sr-nn\"", "[[mechanisms]]\nname = \"emd\"\nepsilons = [10]\n[mechanisms.params]\noov = \"bogus\"\n[[scorers]]\nname = \"sr-nn\"", 1)
	cfg, err := runconfig.ParseConfig(cfg.Path, src)
	if err != nil {
		t.Fatal(err)
	}
	// The corpus cannot be read: a run that loaded it before checking would fail on it.
	if err := os.WriteFile(corpusPath, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	start := time.Now()
	err = runFixture(t, cfg, dir, 1, context.Background(), nil)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v to reject the value", took)
	}
	line := strings.Count(src[:strings.Index(src, "oov = ")], "\n") + 1
	var ce *configfile.Error
	if !errors.As(err, &ce) || ce.File != cfg.Path || ce.Line != line || ce.Key != "mechanisms[2].params.oov" || !strings.Contains(ce.Msg, `"bogus"`) {
		t.Fatalf("got %v (%#v), want the file, line %d and key mechanisms[2].params.oov", err, ce, line)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the rejected run left %s (%v)", dir, err)
	}
}

// An erae model named relative to the config is read from the config's folder (as the config's
// other paths are), whatever the working directory, and its bytes are part of the run's
// fingerprint, so a retrained model is never mixed with cells of the old one.
func TestEraeModelIsReadFromTheConfigsFolderAndFingerprinted(t *testing.T) {
	// A small model (seeded, a few steps) of 40 numbered words.
	store := fixtures.RandomStore(t, rngs.New(1, "erae-relative"), 40, 8, 1)
	var train [][]string
	for i := range 12 {
		doc := make([]string, 30)
		for j := range doc {
			doc[j] = store.Words()[(i*7+j*3)%store.Len()]
		}
		train = append(train, doc)
	}
	o := erae.DefaultTrainOptions()
	o.Vocab, o.Hidden, o.Latent, o.Length, o.Batch, o.PretrainSteps, o.Steps = 40, 8, 4, 12, 4, 5, 10
	model, err := erae.Train(context.Background(), train, store, o, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := model.Save(filepath.Join(dir, "m.erae")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "m.erae"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m.erae"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	src := `name = "erae-relative"
[corpus]
format = "sotu"
[[sets]]
name = "4"
authors = 4
[[mechanisms]]
name = "erae"
epsilons = [10]
[mechanisms.params]
model = "m.erae"
[[scorers]]
name = "sr-nn"
`
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "c.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	if err := runconfig.CheckComponents(cfg); err != nil {
		t.Fatalf("the model beside the config was not found: %v", err)
	}
	inputs, err := rundir.DataInputs(cfg)
	if err != nil || len(inputs) != 1 || !strings.HasPrefix(inputs[0].Role, "model") {
		t.Fatalf("model not fingerprinted: %v, %v", inputs, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m.erae"), append(data, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := rundir.DataInputs(cfg)
	if err != nil || changed[0].SHA256 == inputs[0].SHA256 {
		t.Fatalf("a changed model keeps its fingerprint: %v, %v", changed, err)
	}
}
