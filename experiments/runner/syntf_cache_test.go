package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

// syntfConfig is a run of syntf at ε = 2 with sr-nn over 4 authors of the generated corpus.
func syntfConfig(t *testing.T, name string) *runconfig.Config {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	src := fmt.Sprintf("name = %q\nseed = 3\n%s[[sets]]\nname = \"4\"\nauthors = 4\n[[mechanisms]]\nname = \"syntf\"\nepsilons = [2]\n[[scorers]]\nname = \"sr-nn\"\n",
		name, fixtures.Inputs(corpusPath, vecPath))
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "syntf.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// SynTF's ℓ cache, like the private-document cache, is optional: with a data folder whose
// derived/ cannot be written (here a file, as a read-only or full disk would refuse it), a syntf
// run warns and ends with the results of a run with a working cache.
func TestSynTFRunsWithAnUnwritableDataFolder(t *testing.T) {
	cfg := syntfConfig(t, "syntf-ro")
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

// The ℓ cache of a run is verified and ignored under --force: an entry edited to a negative ℓ
// (which gave ell_n,-3156.9 in results.csv) is reported and recomputed, so the next run's
// results.csv equals the first's; a verified entry rewritten compactly is read by a plain run
// and computed afresh (rewritten) by a run with Force. The mutant: Env.Force not set by the
// runner leaves the compact entry in place after the forced run.
func TestSynTFEllCacheVerifiedAndIgnoredUnderForce(t *testing.T) {
	cfg := syntfConfig(t, "syntf-ell")
	data := t.TempDir()
	d1 := t.TempDir()
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d1, DataDir: data}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(data, "derived", "syntf-ell-*.json"))
	if len(files) != 1 {
		t.Fatalf("ℓ cache entries: %v", files)
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(readFile(t, files[0])), &entry); err != nil {
		t.Fatal(err)
	}
	edited := maps.Clone(entry)
	edited["ell"] = -3156.9
	writeJSONFile(t, files[0], edited)
	var log bytes.Buffer
	d2 := t.TempDir()
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d2, DataDir: data, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "syntf: the cached ℓ") || !strings.Contains(log.String(), "is not used") {
		t.Errorf("the edited ℓ entry was not reported:\n%s", log.String())
	}
	if a, b := readFile(t, filepath.Join(d1, "results.csv")), readFile(t, filepath.Join(d2, "results.csv")); a != b || strings.Contains(b, "-3156.9") {
		t.Fatalf("results after the edit differ from the first run's:\n%s\n---\n%s", a, b)
	}
	compact, _ := json.Marshal(entry)
	if err := os.WriteFile(files[0], compact, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: t.TempDir(), DataDir: data}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, files[0]) != string(compact) {
		t.Fatal("a verified entry was not read by a plain run")
	}
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d1, DataDir: data, Force: true}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, files[0]) == string(compact) {
		t.Error("a run with Force read the ℓ cache instead of computing ℓ afresh")
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
