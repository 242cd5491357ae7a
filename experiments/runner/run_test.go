package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/experiments/runreport"
	"dptext/internal/fixtures"
)

// fixtureConfig is the small experiment of fixtures.Experiment on the generated corpus.
func fixtureConfig(t *testing.T, corpusPath, vecPath string) *runconfig.Config {
	t.Helper()
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "fixture.toml"), fixtures.Experiment(corpusPath, vecPath))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func runFixture(t *testing.T, cfg *runconfig.Config, dir string, jobs int, ctx context.Context, log *bytes.Buffer) error {
	t.Helper()
	if log == nil {
		log = &bytes.Buffer{}
	}
	_, err := Run(ctx, cfg, RunOptions{OutDir: dir, Jobs: jobs, Log: log, DataDir: t.TempDir()})
	return err
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunIsDeterministicAcrossJobsAndWritesEverything(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	d1, d2 := t.TempDir(), t.TempDir()
	if err := runFixture(t, cfg, d1, 1, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := runFixture(t, cfg, d2, 3, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r1, r2 := readFile(t, filepath.Join(d1, "results.csv")), readFile(t, filepath.Join(d2, "results.csv"))
	if r1 != r2 {
		t.Fatal("results.csv differs between --jobs 1 and --jobs 3")
	}
	if !strings.HasPrefix(r1, "set,mechanism,epsilon,repeat,scorer,metric,value\n") {
		t.Fatalf("bad header: %q", r1[:60])
	}
	for _, want := range []string{"6,,,0,split,n_words,", "6,none,,0,sr-nn,correct,", "6,expmech,2,1,fasttext,macro_f1,",
		"6,expmech,8,0,privacy,epsilon_doc,", "6,,,1,fasttext,validation_accuracy,", "6,none,,1,cosine,mean,1\n"} {
		if !strings.Contains(r1, want) {
			t.Errorf("results.csv lacks a row starting %q", want)
		}
	}
	for _, f := range []string{"manifest.json", "table.md", "table.csv", "accuracy-6.png", "accuracy-6.pdf", "report.html"} {
		if info, err := os.Stat(filepath.Join(d1, f)); err != nil || info.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	man, err := rundir.ReadManifest(d1)
	if err != nil || man.Status != rundir.StatusComplete || man.Cells != 6 || man.CellsDone != 6 || len(man.Inputs) != 2 {
		t.Fatalf("manifest %+v, %v", man, err)
	}
	// The none mechanism keeps everything, so the author attacker cannot do worse than on
	// ε = 2 by much; the topic classifiers learned their generated topics.
	if !strings.Contains(readFile(t, filepath.Join(d1, "table.md")), "| none") {
		t.Error("table.md has no none row")
	}
	// Rereport regenerates the same table from results.csv alone.
	before := readFile(t, filepath.Join(d1, "table.md"))
	os.Remove(filepath.Join(d1, "table.md"))
	if err := runreport.Rereport(d1); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(d1, "table.md")) != before {
		t.Error("report regenerated from results.csv differs")
	}
}

// cancelAfter cancels a run once n cells have finished, like a user pressing Ctrl-C.
type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.Contains(p, []byte("done (set=")) {
		c.n--
		if c.n == 0 {
			c.cancel()
		}
	}
	return c.buf.Write(p)
}

func TestInterruptedRunResumesToTheSameResults(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	full := t.TempDir()
	if err := runFixture(t, cfg, full, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{n: 3, cancel: cancel}
	_, err := Run(ctx, cfg, RunOptions{OutDir: dir, Jobs: 1, Log: w, DataDir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "results.csv")); !os.IsNotExist(err) {
		t.Fatal("an interrupted run left a results.csv that looks complete")
	}
	man, _ := rundir.ReadManifest(dir)
	if man.Status != rundir.StatusInterrupted || man.CellsDone != 3 {
		t.Fatalf("manifest after interrupt: status %s, %d cells done", man.Status, man.CellsDone)
	}
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 2, context.Background(), &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "3 of 6 cells already finished; running 3") {
		t.Errorf("resume did not skip the finished cells:\n%s", log.String())
	}
	if readFile(t, filepath.Join(dir, "results.csv")) != readFile(t, filepath.Join(full, "results.csv")) {
		t.Fatal("resumed run's results.csv differs from an uninterrupted run's")
	}
}

func TestRunRefusesAnotherConfigsDirectory(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	other := *cfg
	other.Hash = strings.Repeat("f", 64)
	err := runFixture(t, &other, dir, 2, context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "holds a run of another config") {
		t.Fatalf("got %v", err)
	}
}

func TestFailedRunSaysSoInItsManifest(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 2, 1, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	cfg.Sets[0].Authors = 9 // only 4 authors exist
	dir := t.TempDir()
	err := runFixture(t, cfg, dir, 1, context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), `set "6": asks for 9 authors`) {
		t.Fatalf("got %v", err)
	}
	man, _ := rundir.ReadManifest(dir)
	if man.Status != rundir.StatusFailed || !strings.Contains(man.Error, "asks for 9 authors") {
		t.Fatalf("manifest: %+v", man)
	}
}

// Cells made by another version of a component are not reused silently.
func TestRunRefusesCellsOfOtherComponentVersions(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	entry := registry.Mechanisms["expmech"]
	saved := entry.Version
	entry.Version = saved + "-changed"
	registry.Mechanisms["expmech"] = entry
	defer func() { entry.Version = saved; registry.Mechanisms["expmech"] = entry }()
	err := runFixture(t, cfg, dir, 2, context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "mechanism/expmech (1 → 1-changed)") {
		t.Fatalf("got %v", err)
	}
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: dir, Jobs: 2, Force: true, DataDir: t.TempDir()}); err != nil {
		t.Fatalf("--force should recompute: %v", err)
	}
}

// A config that differs only in its scorers gets a new run directory but reuses the
// privatised documents of the first run; --force recomputes them.
func TestPrivateDocumentsAreReusedAcrossRuns(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	more, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "more.toml"), cfg.Text+"[[scorers]]\nname = \"nb\"\n")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	var log1, log2, log3 bytes.Buffer
	d1, d2 := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d1, Jobs: 2, Log: &log1, DataDir: data}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), more, RunOptions{OutDir: d2, Jobs: 2, Log: &log2, DataDir: data}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log1.String(), "private cache: 0 of 6") || !strings.Contains(log2.String(), "private cache: 6 of 6") {
		t.Fatalf("cache use:\n%s\n%s", log1.String(), log2.String())
	}
	rows := func(dir string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(readFile(t, filepath.Join(dir, "results.csv")), "\n") {
			m[l] = true
		}
		return m
	}
	r1, r2 := rows(d1), rows(d2)
	for l := range r1 {
		if !r2[l] {
			t.Fatalf("row %q of the first run is not in the second", l)
		}
	}
	if _, err := Run(context.Background(), more, RunOptions{OutDir: d2, Jobs: 2, Log: &log3, DataDir: data, Force: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log3.String(), "private cache:") {
		t.Errorf("--force used the cache:\n%s", log3.String())
	}
}
