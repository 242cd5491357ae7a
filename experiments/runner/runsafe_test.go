package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"dptext/experiments/rundir"
	"dptext/experiments/runreport"
	"dptext/internal/fixtures"
)

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// Editing the corpus after a run makes a rerun into the same folder refuse, naming the corpus;
// --force gives the results of a fresh run, never a mix.
func TestRerunAfterCorpusEditRefusesOrRecomputes(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	old := readFile(t, filepath.Join(dir, "results.csv"))
	src := readFile(t, corpusPath)
	edited := strings.Replace(src, "quirk0x0", "quirk9x9", 40)
	if edited == src {
		t.Fatal("the edit changed nothing")
	}
	if err := os.WriteFile(corpusPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runFixture(t, cfg, dir, 2, context.Background(), nil)
	if !errors.Is(err, rundir.ErrRefused) || !strings.Contains(err.Error(), "changed: corpus (sha256") {
		t.Fatalf("rerun after a corpus edit: got %v", err)
	}
	if readFile(t, filepath.Join(dir, "results.csv")) != old {
		t.Fatal("a refused rerun changed the earlier results")
	}
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: dir, Jobs: 2, Force: true, DataDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if err := runFixture(t, cfg, fresh, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(dir, "results.csv"))
	if got != readFile(t, filepath.Join(fresh, "results.csv")) {
		t.Fatal("--force after a corpus edit differs from a fresh run")
	}
	if got == old {
		t.Fatal("the corpus edit changed no result; the test does not exercise staleness")
	}
}

// A second run into a folder in use refuses; a lock left by a dead process is taken over.
func TestRunDirectoryIsLocked(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	dir := t.TempDir()
	// A run while another live process holds the folder's lock (here this test process, as a
	// concurrent run would) is refused and leaves the lock alone; once it is released, a run
	// goes ahead and removes its own lock at the end. (Deterministic: two real runs started
	// together need not overlap.)
	held, _ := json.Marshal(rundir.LockInfo{PID: os.Getpid(), Host: rundir.Hostname(), Started: time.Now()})
	if err := os.WriteFile(filepath.Join(dir, rundir.LockName), held, 0o644); err != nil {
		t.Fatal(err)
	}
	err := runFixture(t, cfg, dir, 1, context.Background(), nil)
	if !errors.Is(err, rundir.ErrRefused) || !strings.Contains(err.Error(), "is locked by a running process") {
		t.Fatalf("a run into a locked folder: got %v, want a refusal", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, rundir.LockName)); string(got) != string(held) {
		t.Fatal("the refused run touched the other run's lock")
	}
	os.Remove(filepath.Join(dir, rundir.LockName))
	if err := runFixture(t, cfg, dir, 1, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.LockName)); !os.IsNotExist(err) {
		t.Fatal("the lock outlived the run")
	}
	// A stale lock of a dead process of this host is reported and taken over.
	data, _ := json.Marshal(rundir.LockInfo{PID: deadPID(t), Host: rundir.Hostname(), Started: time.Now()})
	if err := os.WriteFile(filepath.Join(dir, rundir.LockName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 1, context.Background(), &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "which is no longer running") {
		t.Fatalf("no stale-lock message:\n%s", log.String())
	}
	// A lock of another host is not second-guessed.
	data, _ = json.Marshal(rundir.LockInfo{PID: 1, Host: "elsewhere", Started: time.Now()})
	os.WriteFile(filepath.Join(dir, rundir.LockName), data, 0o644)
	if err := runFixture(t, cfg, dir, 1, context.Background(), nil); err == nil || !strings.Contains(err.Error(), "on host elsewhere") {
		t.Fatalf("lock of another host: got %v", err)
	}
}

// A cell file cut short is not finished: it is logged and recomputed.
func TestTruncatedCellIsRecomputed(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, filepath.Join(dir, "results.csv"))
	file := filepath.Join(dir, "cells", rundir.CellFile("set=6/mech=expmech/eps=2/rep=1"))
	data := readFile(t, file)
	if err := os.WriteFile(file, []byte(data[:len(data)/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 2, context.Background(), &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "is not a complete cell file") || !strings.Contains(log.String(), "5 of 6 cells already finished; running 1") {
		t.Fatalf("the truncated cell was not recomputed:\n%s", log.String())
	}
	if readFile(t, filepath.Join(dir, "results.csv")) != want {
		t.Fatal("results differ after recomputing the truncated cell")
	}
}

// A damaged entry of the private-document cache is detected, logged and recomputed.
func TestDamagedPrivateCacheEntryIsRecomputed(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	data := t.TempDir()
	d1, d2 := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d1, Jobs: 2, DataDir: data}); err != nil {
		t.Fatal(err)
	}
	var entries []string
	filepath.WalkDir(filepath.Join(data, "derived", "private"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			entries = append(entries, p)
		}
		return nil
	})
	if len(entries) == 0 {
		t.Fatal("no cache entries")
	}
	// Flip one bit of each entry, in the compressed payload and in the checksum line in turn.
	for i, e := range entries {
		b, _ := os.ReadFile(e)
		pos := len(b) / 2
		if i%2 == 1 {
			pos = len(privateMagic) + 3
		}
		b[pos] ^= 0x10
		os.WriteFile(e, b, 0o644)
	}
	var log bytes.Buffer
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d2, Jobs: 2, DataDir: data, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(log.String(), "is damaged") != len(entries) || !strings.Contains(log.String(), "private cache: 0 of 6") {
		t.Fatalf("damaged entries were not all detected (%d entries):\n%s", len(entries), log.String())
	}
	if readFile(t, filepath.Join(d1, "results.csv")) != readFile(t, filepath.Join(d2, "results.csv")) {
		t.Fatal("results differ after recomputing damaged cache entries")
	}
}

// A run that starts removes the outputs of the earlier run, so an interrupted run leaves no
// stale table or plot; a run whose process died is reported dead, not running.
func TestInterruptedRunLeavesNoOldOutputsAndDeadRunsAreNamed(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{n: 1, cancel: cancel}
	if _, err := Run(ctx, cfg, RunOptions{OutDir: dir, Jobs: 1, Force: true, Log: w, DataDir: t.TempDir()}); err == nil {
		t.Fatal("the interrupted run succeeded")
	}
	for _, f := range []string{"results.csv", "table.md", "summary.csv", "predictions.csv", "accuracy-6.png", "accuracy-6.pdf"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s of the earlier run is still there after an interrupted run", f)
		}
	}
	man, err := rundir.ReadManifest(dir)
	if err != nil || man.Status != rundir.StatusInterrupted || !strings.Contains(man.Error, "finished cells are kept") {
		t.Fatalf("manifest %+v, %v", man, err)
	}
	// Pretend the process was killed: status running, pid of a dead process.
	man.Status, man.PID, man.Host = rundir.StatusRunning, deadPID(t), rundir.Hostname()
	if err := man.Write(dir); err != nil {
		t.Fatal(err)
	}
	m2, _ := rundir.ReadManifest(dir)
	if alive, _ := m2.Liveness(); alive || !strings.HasPrefix(m2.StatusLine(), "dead") {
		t.Fatalf("a run of a dead process reads %q", m2.StatusLine())
	}
	if err := runreport.Rereport(dir); err == nil || !strings.Contains(err.Error(), "dead") {
		t.Fatalf("report of a dead run: %v", err)
	}
	if _, _, err := runreport.CompareRuns(dir, dir, 0.01); err == nil || !strings.Contains(err.Error(), "dead") {
		t.Fatalf("compare of a dead run: %v", err)
	}
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 2, context.Background(), &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "the previous run died without finishing") {
		t.Fatalf("resume did not say the earlier run died:\n%s", log.String())
	}
}

// predictions.csv holds every scorer's answer for every document of every cell, identical at
// any --jobs.
func TestPredictionsAreWrittenDeterministically(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	d1, d2 := t.TempDir(), t.TempDir()
	if err := runFixture(t, cfg, d1, 1, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if err := runFixture(t, cfg, d2, 3, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	p1 := readFile(t, filepath.Join(d1, "predictions.csv"))
	if p1 != readFile(t, filepath.Join(d2, "predictions.csv")) {
		t.Fatal("predictions.csv differs between --jobs 1 and --jobs 3")
	}
	lines := strings.Split(strings.TrimSpace(p1), "\n")
	if lines[0] != "set,mechanism,epsilon,repeat,scorer,document,truth,prediction,item,author,value" {
		t.Fatalf("header %q", lines[0])
	}
	// 6 cells × (3 classifiers (sr-nn, sr-knn-topic, fasttext) + 1 utility measure (cosine)) ×
	// 6 evaluation documents (one per author).
	if len(lines)-1 != 6*4*6 {
		t.Fatalf("%d prediction rows, want %d", len(lines)-1, 6*4*6)
	}
	if !strings.Contains(p1, "\n6,expmech,2,1,sr-nn,author-sea-0-") || !strings.Contains(p1, ",sr-knn-topic,") {
		t.Fatalf("unexpected rows:\n%s", strings.Join(lines[:5], "\n"))
	}
	// The accuracy in results.csv is the share of matching rows.
	correct := 0
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[1] == "none" && f[4] == "sr-nn" && f[3] == "0" && f[6] == f[7] {
			correct++
		}
	}
	if !strings.Contains(readFile(t, filepath.Join(d1, "results.csv")), "6,none,,0,sr-nn,correct,"+strconv.Itoa(correct)+"\n") {
		t.Fatalf("predictions of none/sr-nn/rep 0 give %d correct, results.csv disagrees", correct)
	}
}

// A run of another host is alive while its heartbeat is recent, dead after staleAfter.
func TestLivenessOfAnotherHostsRunFollowsItsHeartbeat(t *testing.T) {
	recent, old := time.Now().Add(-rundir.HeartbeatInterval), time.Now().Add(-2*rundir.StaleAfter)
	m := &rundir.Manifest{Status: rundir.StatusRunning, PID: 1, Host: "elsewhere", Heartbeat: &recent}
	if alive, why := m.Liveness(); !alive {
		t.Fatalf("recent heartbeat judged dead: %s", why)
	}
	m.Heartbeat = &old
	if alive, _ := m.Liveness(); alive || !strings.Contains(m.StatusLine(), "no heartbeat from pid 1 on host elsewhere") {
		t.Fatalf("stale heartbeat: %s", m.StatusLine())
	}
	m.Status = rundir.StatusComplete
	if m.StatusLine() != rundir.StatusComplete {
		t.Fatalf("complete run reads %q", m.StatusLine())
	}
}

// The private-document cache is optional: when it cannot be written (here its folder is a
// file, as a full or read-only disk would refuse it), the run warns and completes with the same
// results.
func TestUnwritablePrivateCacheDoesNotFailTheRun(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	d1, d2 := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d1, Jobs: 2, DataDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	blocked := t.TempDir()
	if err := os.MkdirAll(filepath.Join(blocked, "derived"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "derived", "private"), []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: d2, Jobs: 2, DataDir: blocked, Log: &log}); err != nil {
		t.Fatalf("a run failed because the optional cache could not be written: %v", err)
	}
	if !strings.Contains(log.String(), "could not write") {
		t.Fatalf("no warning about the unwritable cache:\n%s", log.String())
	}
	if readFile(t, filepath.Join(d1, "results.csv")) != readFile(t, filepath.Join(d2, "results.csv")) {
		t.Fatal("results differ when the cache cannot be written")
	}
}
