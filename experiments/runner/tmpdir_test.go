package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/experiments/rundir"
	"dptext/experiments/runreport"
	"dptext/internal/fixtures"
)

// With TMPDIR missing or a file, a run is refused before any input is read or folder made
// (it panicked in vgpdf after every cell, leaving the manifest "running"), naming TMPDIR;
// `dptext report` of a complete run is refused the same way and leaves the run as it was. The
// mutant: without render.CheckTempDir in Run, the run goes on (and, in a process whose PDF
// fonts are not made yet, panics after the cells).
func TestRunAndReportRefuseAnUnusableTMPDIR(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	done := t.TempDir()
	if err := runFixture(t, cfg, done, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	table := readFile(t, filepath.Join(done, "table.md"))
	base := t.TempDir()
	file := filepath.Join(base, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tmp := range []string{filepath.Join(base, "missing"), file} {
		out := filepath.Join(base, "run-"+filepath.Base(tmp))
		data := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		_, err := Run(context.Background(), cfg, RunOptions{OutDir: out, Jobs: 2, DataDir: data})
		if err == nil || !strings.Contains(err.Error(), "TMPDIR") {
			t.Errorf("TMPDIR %s: run error %v; want a refusal naming TMPDIR", tmp, err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("TMPDIR %s: the refused run made its folder (%v)", tmp, err)
		}
		if err := runreport.Rereport(done); err == nil || !strings.Contains(err.Error(), "TMPDIR") {
			t.Errorf("TMPDIR %s: report error %v; want a refusal naming TMPDIR", tmp, err)
		}
		if man, err := rundir.ReadManifest(done); err != nil || man.Status != rundir.StatusComplete || readFile(t, filepath.Join(done, "table.md")) != table {
			t.Errorf("TMPDIR %s: a refused report changed the run: %+v, %v", tmp, man, err)
		}
	}
}
