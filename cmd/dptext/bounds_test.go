package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// `train erae --out` naming a folder, a named pipe or a symbolic link to /dev/null (or, as
// root, a character device made by mknod) is refused before the config is read, let alone a
// step trained (it trained every step, then replaced the device with a regular file or failed
// on the folder's rename leaving OUT.partial); the file stays what it was. The mutant: without
// checkTrainOutputs the command reads the (here missing) config and fails on that instead.
func TestTrainRefusesAnOutThatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "existing-folder")
	fifo := filepath.Join(dir, "fifo")
	link := filepath.Join(dir, "null-link")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	outs := map[string]string{folder: "a folder", fifo: "a named pipe", link: "a character device"}
	if os.Geteuid() == 0 {
		dev := filepath.Join(dir, "dev0")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Fatalf("mknod as root: %v", err)
		}
		outs[dev] = "a character device"
	}
	missing := filepath.Join(dir, "no-such-config.toml")
	for out, kind := range outs {
		before, _ := os.Lstat(out)
		code, _, stderr := run(t, "train", "erae", "--config", missing, "--out", out)
		if code != 2 || !strings.Contains(stderr, out+" is "+kind+", not a regular file") {
			t.Errorf("--out %s: exit %d, %q; want a usage error naming %s", out, code, stderr, kind)
		}
		if after, err := os.Lstat(out); err != nil || after.Mode().Type() != before.Mode().Type() {
			t.Errorf("--out %s: %v → %v", out, before.Mode().Type(), after.Mode().Type())
		}
		if _, err := os.Lstat(out + ".partial"); err == nil {
			t.Errorf("--out %s: a checkpoint was written", out)
		}
	}
}
