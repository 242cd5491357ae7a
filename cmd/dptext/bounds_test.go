package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/rundir"
)

// Training sizes whose memory exceeds the machine are refused before any data is read, with
// the estimate (they panicked in makeslice).
func TestTrainRefusesHugeSizes(t *testing.T) {
	for _, flag := range []string{"--hidden", "--batch"} {
		code, _, stderr := run(t, "train", "erae", "--config", "../../configs/erae.toml", "--out", filepath.Join(t.TempDir(), "m"), flag, "1000000000")
		if code != 2 || !strings.Contains(stderr, "needs about") || !strings.Contains(stderr, "more than this machine's") {
			t.Errorf("%s 1e9: exit %d, %q", flag, code, stderr)
		}
	}
}

// A synthetic vocabulary beyond the machine's memory is refused with its estimate (it died in
// makeslice).
func TestBenchDecodeRefusesAHugeSyntheticVocabulary(t *testing.T) {
	code, _, stderr := run(t, "bench", "decode", "--synthetic", "100000000000x300")
	if code != 2 || !strings.Contains(stderr, "--synthetic 100000000000x300: needs about 116 TiB of memory") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// --claim NaN is refused, not taken for the default (the mechanism's own ε).
func TestAuditRefusesClaimNaN(t *testing.T) {
	code, _, stderr := run(t, "audit", "--mechanism", "random", "--claim", "NaN")
	if code != 2 || !strings.Contains(stderr, "--claim NaN: want a finite number ≥ 0") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// An interrupted shard counts the cells of its own manifest: "4 of 7", not "nothing was
// computed yet" (what the whole run's absent manifest.json said).
func TestInterruptedShardCountsItsCells(t *testing.T) {
	dir := t.TempDir()
	s := rundir.Shard{K: 1, N: 3}
	man, _ := json.Marshal(rundir.Manifest{Tool: "dptext", Status: rundir.StatusInterrupted, Cells: 7, CellsDone: 4, Shard: &s})
	if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shards", "1-of-3.json"), man, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := keptCells(dir, s); got != "4 of 7 cells are finished and kept in "+filepath.Join(dir, "cells") {
		t.Errorf("shard 1/3: %q", got)
	}
	if got := keptCells(dir, rundir.Shard{K: 0, N: 3}); got != "nothing was computed yet" {
		t.Errorf("shard 0/3, which has no manifest: %q", got)
	}
}

// An interrupted training exits with the status of an interrupted run (it exited 1).
func TestInterruptedTrainExitsLikeRun(t *testing.T) {
	var e strings.Builder
	code := exitStatus("train", "erae …", trainInterrupted("m.model"), &e)
	if code != 130 || !strings.Contains(e.String(), "interrupted; the checkpoint m.model.partial is kept") {
		t.Errorf("exit %d, %q", code, e.String())
	}
}
