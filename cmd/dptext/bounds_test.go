package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"dptext/experiments/rundir"
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
	if code != 2 || !strings.Contains(stderr, "--claim NaN: want a finite number") {
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

// Every count a command line gives is bounded, and the refusal names the flag and the limit
// (each of these died out of memory, wrote a Slurm array of 10⁹ tasks or did not exit):
// shards (run --shard, run --shards, slurm --shards, also against the config's cells),
// goroutines (run --jobs, bench decode --workers, slurm --cpus), audit samples and pairs,
// bench rounds and queries, and, for every other integer flag, configfile.MaxCount; a float
// flag must be finite (bench decode --ghz NaN printed words_per_second=NaN). The mutants: each
// check removed, the command goes on (and the test, finding no refusal, fails).
func TestCountFlagsAreBounded(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "two-cells.toml")
	src := "name = \"x\"\nrepeats = 2\n[[sets]]\nname = \"a\"\nauthors = 2\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", cfg, "--out", out, "--shard", "0/100000000000"}, "the shard count N = 100000000000: at most 1000000"},
		{[]string{"run", cfg, "--out", out, "--shard", "auto", "--shards", "2000000"}, "--shards 2000000: want 0 (from the environment) to 1000000"},
		{[]string{"run", cfg, "--out", out, "--jobs", "100000"}, "--jobs 100000: want 1 to 1024"},
		{[]string{"slurm", cfg, "--out", out, "--shards", "1000000000"}, "--shards 1000000000: want 1 to 1000000"},
		{[]string{"slurm", cfg, "--out", out, "--shards", "3"}, "--shards 3: the config has 2 cells, so at most 2 shards"},
		{[]string{"slurm", cfg, "--out", out, "--shards", "2", "--cpus", "5000"}, "--cpus 5000: want 1 to 1024"},
		{[]string{"audit", "--mechanism", "random", "--samples", "100000000000"}, "--samples 100000000000: at most 1000000000"},
		{[]string{"audit", "--mechanism", "random", "--samples", "2000000"}, "--samples 2000000: want 10 to 1000000"},
		{[]string{"audit", "--mechanism", "random", "--max-samples", "2000000"}, "--max-samples 2000000: want 0 (off) to 1000000"},
		{[]string{"audit", "--mechanism", "random", "--pairs", "1000"}, "--pairs 1000: want 1 to 100"},
		{[]string{"bench", "decode", "--workers", "100000"}, "--workers 100000: want 0 (all cores) to 1024"},
		{[]string{"bench", "decode", "--rounds", "100000"}, "--rounds 100000: want 1 to 1000"},
		{[]string{"bench", "decode", "--queries", "100000000"}, "--queries 100000000: want 1 to 1000000"},
		{[]string{"bench", "decode", "--ghz", "NaN"}, "--ghz NaN: want a finite number"},
		{[]string{"bench", "decode", "--ghz", "1e6"}, "--ghz 1e+06: want 0 (measure) or a clock in GHz up to 100"},
		{[]string{"train", "erae", "--config", cfg, "--out", out, "--steps", "10000000000"}, "--steps 10000000000: at most 1000000000"},
		// --checkpoint-every 0 or −1 silently wrote no checkpoint (mutant: no check in cmdTrain —
		// train then loads the data and trains, and the test runs past its deadline).
		{[]string{"train", "erae", "--config", cfg, "--out", out + ".model", "--checkpoint-every", "-1"}, "--checkpoint-every -1: want 1 to 1000000000 steps"},
		{[]string{"train", "erae", "--config", cfg, "--out", out + ".model", "--checkpoint-every", "0"}, "--checkpoint-every 0: want 1 to 1000000000 steps"},
		{[]string{"calibrate", "--draws", "-10000000000"}, "--draws -10000000000: at most 1000000000"},
		{[]string{"calibrate", "--words", "2000000"}, "--words 2000000: want 1 to 1000000"},
		{[]string{"calibrate", "--draws", "-1"}, "--draws -1: want 0 (off) or more"},
		{[]string{"calibrate", "--words", "2000", "--draws", "100000"}, "--words × --draws = 200000000: at most 10000000 decodes per ε"},
		{[]string{"attribute", "--input", dir, "--output", out, "--reject-threshold", "Inf"}, "--reject-threshold +Inf: want a finite number"},
	} {
		code, _, stderr := run(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want a refusal containing %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "slurm")); err == nil {
		t.Error("a refused slurm command wrote its scripts")
	}
}

// Every command refuses a non-finite or out-of-range ε, count or size the same way, for every
// mechanism: `audit --mechanism random --epsilon X` exited 0 printing "at ε = X" (mutant:
// mechanismFlags.decode without its check of mechanisms that take no ε), ε lists are sets
// (mutant: parseFloats without its duplicate check), and privacy's --n is bounded (mutant: no
// check; the table of n = 0 printed εn = 0).
func TestEveryCommandRefusesBadEpsilonsAndCounts(t *testing.T) {
	for _, eps := range []string{"-1", "0", "1e-300", "1e308", "inf"} {
		for _, mech := range []string{"random", "none", "scrub"} {
			code, _, stderr := run(t, "audit", "--mechanism", mech, "--epsilon", eps)
			if code != 2 || !strings.Contains(stderr, "--epsilon") || !strings.Contains(stderr, `mechanism "`+mech+`" takes no ε; leave --epsilon out`) {
				t.Errorf("audit %s --epsilon %s: exit %d, %q", mech, eps, code, stderr)
			}
		}
		for _, mech := range []string{"emd", "expmech", "syntf"} {
			code, _, stderr := run(t, "audit", "--mechanism", mech, "--epsilon", eps)
			if code == 0 || !strings.Contains(stderr, "--epsilon") || !strings.Contains(stderr, mech) {
				t.Errorf("audit %s --epsilon %s: exit %d, %q", mech, eps, code, stderr)
			}
		}
		code, _, stderr := run(t, "obfuscate", "--mechanism", "random", "--epsilon", eps)
		if code != 2 || !strings.Contains(stderr, `mechanism "random" takes no ε`) {
			t.Errorf("obfuscate random --epsilon %s: exit %d, %q", eps, code, stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "--epsilons", "5,10,5"}, "--epsilons: entries 1 and 3 are both 5: want distinct values"},
		{[]string{"privacy", "--epsilons", "47.5,47.5"}, "--epsilons: entries 1 and 2 are both 47.5"},
		{[]string{"privacy", "--n", "0"}, "--n 0: want 1 to 1000000000"},
		{[]string{"privacy", "--n", "-3"}, "--n -3: want 1 to 1000000000"},
		{[]string{"audit", "--mechanism", "emd", "--epsilon", "10", "--top-k", "2000000000"}, "--top-k 2000000000"},
		{[]string{"bench", "decode", "--epsilon", "inf"}, "--epsilon +Inf: want a finite number"},
		{[]string{"bench", "decode", "--epsilon", "0"}, "--epsilon 0: want a finite number > 0"},
	} {
		code, _, stderr := run(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want a refusal containing %q", c.args, code, stderr, c.want)
		}
	}
}
