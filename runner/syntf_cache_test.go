package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/runconfig"
)

// SynTF's ℓ cache, like the private-document cache, is optional: with a data folder whose
// derived/ cannot be written (here a file, as a read-only or full disk would refuse it), a syntf
// run warns and ends with the results of a run with a working cache.
func TestSynTFRunsWithAnUnwritableDataFolder(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	src := `name = "syntf-ro"
seed = 3
` + fixtures.Inputs(corpusPath, vecPath) + `[[sets]]
name = "4"
authors = 4
[[mechanisms]]
name = "syntf"
epsilons = [2]
[[scorers]]
name = "sr-nn"
`
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "syntf.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	d1, d2 := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d1, DataDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	blocked := t.TempDir()
	if err := os.WriteFile(filepath.Join(blocked, "derived"), []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d2, DataDir: blocked, Log: &log}); err != nil {
		t.Fatalf("a syntf run failed because its optional ℓ cache could not be written: %v", err)
	}
	if !strings.Contains(log.String(), "syntf: could not write ℓ to the cache") {
		t.Fatalf("no warning about the unwritable ℓ cache:\n%s", log.String())
	}
	if readFile(t, filepath.Join(d1, "results.csv")) != readFile(t, filepath.Join(d2, "results.csv")) {
		t.Fatal("results differ when the ℓ cache cannot be written")
	}
}
