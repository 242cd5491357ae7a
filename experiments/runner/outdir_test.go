package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dptext/experiments/rundir"
	"dptext/internal/fixtures"
)

// A run into a folder of the user's refuses, lists what is there and touches nothing; a rerun
// into a dptext run folder removes its own earlier outputs (those its manifest lists) but not a
// picture or paper the user put there — not even one named like a plot of the config's layout
// (accuracy-mine.png) or a .tsv in tf/, which the rerun deleted before the manifest listed the
// outputs (the mutant: removing every `<plot metric>-*.png` and tf/*.tsv, the former rule).
func TestRunNeverRemovesUserFiles(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	user := t.TempDir()
	for _, f := range []string{"fig.png", "paper.pdf", "tf/notes.txt"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(user, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(user, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := runFixture(t, cfg, user, 1, context.Background(), nil)
	if !errors.Is(err, rundir.ErrRefused) || !strings.Contains(err.Error(), "fig.png, paper.pdf, tf/") {
		t.Fatalf("run into a user's folder: got %v, want a refusal listing fig.png, paper.pdf and tf/", err)
	}
	entries, _ := os.ReadDir(user)
	if len(entries) != 3 {
		t.Fatalf("a refused run changed the user's folder: %v", entries)
	}
	for _, f := range []string{"fig.png", "paper.pdf", "tf/notes.txt"} {
		if readFile(t, filepath.Join(user, f)) != f {
			t.Fatalf("%s changed", f)
		}
	}

	// A run folder of dptext with the user's files added: a rerun keeps them.
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 1, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	plots, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(plots) == 0 {
		t.Fatal("the fixture run wrote no plot; the test does not exercise the plot removal")
	}
	man, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(plots, filepath.Join(dir, "results.csv"), filepath.Join(dir, "table.md")) {
		if !slices.Contains(man.Outputs, filepath.Base(p)) {
			t.Errorf("the manifest's outputs %v do not list %s", man.Outputs, filepath.Base(p))
		}
	}
	userFiles := []string{"fig.png", "paper.pdf", "tf/notes.txt", "cells/mine.txt", "accuracy-mine.png", "accuracy-mine.pdf", "tf/mine.tsv"}
	for _, f := range userFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".manifest.json.tmp-123"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, RunOptions{OutDir: dir, Jobs: 1, Force: true, DataDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	for _, f := range userFiles {
		if readFile(t, filepath.Join(dir, f)) != f {
			t.Fatalf("a rerun with --force removed or changed the user's %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".manifest.json.tmp-123")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the temporary manifest a kill left is still there (%v)", err)
	}
}

// checkOutDir accepts a missing or empty folder and one holding only what dptext writes (a run
// killed before its first manifest), and refuses a file and a folder of other files.
func TestCheckOutDir(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, files ...string) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(d, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	for _, ok := range []string{filepath.Join(base, "missing"), mk("empty"), mk("killed", "run.lock", "cells/x.cell", ".manifest.json.tmp-9")} {
		if err := rundir.CheckOutDir(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Without a manifest, outputs of a complete run and foreign files in cells/ are the user's.
	for _, bad := range []string{file, mk("home", "thesis.tex", "run.lock"), mk("fake", "manifest.json", "x.png"),
		mk("data", "cells/data.csv"), mk("tables", "results.csv"), mk("tsv", "tf/a.tsv")} {
		if err := rundir.CheckOutDir(bad); !errors.Is(err, rundir.ErrRefused) {
			t.Errorf("%s: got %v, want a refusal", bad, err)
		}
	}
}
