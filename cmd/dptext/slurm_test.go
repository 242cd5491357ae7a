package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dptext slurm writes an array of one task per shard, a merge script and submit.sh; with
// --submit it submits the array, then the merge with --dependency=afterok:<array id>, and
// prints both ids (sbatch is a stand-in on PATH that records its arguments).
func TestSlurmWritesAndSubmitsTheArrayAndTheMerge(t *testing.T) {
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	fake := "#!/bin/sh\necho \"$@\" >> " + calls + "\nn=$(wc -l < " + calls + ")\nif [ \"$n\" = 1 ]; then echo '41;cluster'; else echo 42; fi\n"
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(t.TempDir(), "run-dir")
	code, stdout, stderr := run(t, "slurm", "../../configs/ci.toml", "--shards", "3", "--out", out, "--partition", "short",
		"--time", "1:00:00", "--mem", "4G", "--cpus", "4", "--dptext", "/opt/dp/dptext", "--submit")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "shards: 41\nmerge: 42\n") {
		t.Errorf("job ids not printed: %q", stdout)
	}
	got := readText(t, calls)
	if !strings.Contains(got, "--parsable "+filepath.Join(out, "slurm", "shards.sbatch")+"\n") ||
		!strings.Contains(got, "--parsable --dependency=afterok:41 "+filepath.Join(out, "slurm", "merge.sbatch")+"\n") {
		t.Errorf("sbatch calls:\n%s", got)
	}
	shards := readText(t, filepath.Join(out, "slurm", "shards.sbatch"))
	for _, want := range []string{"#SBATCH --array=0-2\n", "#SBATCH --partition=short\n", "#SBATCH --time=1:00:00\n",
		"#SBATCH --mem=4G\n", "#SBATCH --cpus-per-task=4\n", "'/opt/dp/dptext' run ", "--out '" + out + "' --shard \"${SLURM_ARRAY_TASK_ID:?run as a job array: sbatch --array=K}/3\""} {
		if !strings.Contains(shards, want) {
			t.Errorf("shards.sbatch lacks %q:\n%s", want, shards)
		}
	}
	if merge := readText(t, filepath.Join(out, "slurm", "merge.sbatch")); !strings.Contains(merge, "'/opt/dp/dptext' merge '"+out+"'\n") {
		t.Errorf("merge.sbatch:\n%s", merge)
	}
	if sub := readText(t, filepath.Join(out, "slurm", "submit.sh")); !strings.Contains(sub, "--dependency=afterok:\"$array\"") {
		t.Errorf("submit.sh:\n%s", sub)
	}
	for _, bad := range [][]string{{"--shards", "0"}, {"--shards", "2", "--time", "1:00; rm -rf /"}, {"--shards", "2", "--out", ""}} {
		args := append([]string{"slurm", "../../configs/ci.toml", "--out", out, "--dptext", "/x"}, bad...)
		if code, _, _ := run(t, args...); code != 2 {
			t.Errorf("dptext %s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}

// The recovery step of docs/slurm.md, `sbatch --array=K shards.sbatch`, runs shard K of N, though
// Slurm then says the array has one task starting at K (here the script runs under bash with
// that environment and a stand-in dptext that prints its arguments).
func TestSlurmRerunOfOneTaskRunsItsShard(t *testing.T) {
	bin := t.TempDir()
	fake := filepath.Join(bin, "dptext")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := run(t, "slurm", "../../configs/ci.toml", "--shards", "3", "--out", out, "--dptext", fake); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cmd := exec.Command("bash", filepath.Join(out, "slurm", "shards.sbatch"))
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_COUNT=1", "SLURM_ARRAY_TASK_MIN=2", "SLURM_ARRAY_TASK_MAX=2")
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if !strings.Contains(string(got), "--shard 2/3 ") {
		t.Fatalf("the task of sbatch --array=2 ran %q, want shard 2/3", got)
	}
}

// Values Slurm cannot take in an #SBATCH line, or a script cannot carry, are refused with exit 2
// and a message naming the character; nothing is written.
// --time and --mem that are no sbatch value are refused before a script is written: "-1",
// "NaN", "Inf" and "1e308" were written into #SBATCH lines, exit 0. Mutant: ValidTime and
// ValidMem returning true — the command writes the scripts and exits 0.
func TestSlurmRefusesTimesAndMemoryThatAreNoSbatchValues(t *testing.T) {
	base := t.TempDir()
	for _, c := range [][2]string{{"--time", "-1"}, {"--time", "NaN"}, {"--time", "1e308"}, {"--mem", "-1"}, {"--mem", "Inf"}, {"--mem", "8GB."}} {
		out := filepath.Join(base, "r")
		code, _, stderr := run(t, "slurm", "../../configs/ci.toml", "--shards", "2", "--out", out, "--dptext", "/x", c[0], c[1])
		if code != 2 || !strings.Contains(stderr, c[0]+" \""+c[1]+"\": want sbatch's form") {
			t.Errorf("%s %s: exit %d, %q", c[0], c[1], code, stderr)
		}
	}
	for _, c := range [][2]string{{"--time", "2:00:00"}, {"--time", "1-12"}, {"--time", "90"}, {"--mem", "8G"}, {"--mem", "16000"}} {
		out := filepath.Join(base, "ok"+c[1])
		if code, _, stderr := run(t, "slurm", "../../configs/ci.toml", "--shards", "2", "--out", out, "--dptext", "/x", c[0], c[1]); code != 0 {
			t.Errorf("%s %s: exit %d, %q", c[0], c[1], code, stderr)
		}
	}
}

func TestSlurmRefusesHostilePaths(t *testing.T) {
	base := t.TempDir()
	for _, c := range []struct{ out, msg string }{
		{"a\ntouch /tmp/pwned", "control character"},
		{"run dir", `cannot hold " "`},
		{"run-%j", `cannot hold "%"`},
		{`run"x`, `cannot hold "\""`},
	} {
		out := filepath.Join(base, c.out)
		code, _, stderr := run(t, "slurm", "../../configs/ci.toml", "--shards", "2", "--out", out, "--dptext", "/x")
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("--out %q: exit %d, %q; want 2 and %q", out, code, stderr, c.msg)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--out %q: a refused command made the folder (%v)", out, err)
		}
	}
	code, _, stderr := run(t, "slurm", "../../configs/ci.toml", "--shards", "2", "--out", filepath.Join(base, "ok"), "--dptext", "/x\ny")
	if code != 2 || !strings.Contains(stderr, "control character") {
		t.Errorf("--dptext with a newline: exit %d, %q", code, stderr)
	}
}

func TestRunShardFlagsAreChecked(t *testing.T) {
	for _, c := range []struct{ args, msg string }{
		{"--shard 3/3", "from 0 to 2"},
		{"--shard 1/3 --shards 3", "only with --shard auto"},
		{"--shard 0/2 --update-baseline", "a shard writes no results.csv"},
		{"--shard auto", "none of SLURM_ARRAY_TASK_ID"},
	} {
		for _, v := range []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"} {
			t.Setenv(v, "")
		}
		code, _, stderr := run(t, append([]string{"run", "../../configs/ci.toml"}, strings.Fields(c.args)...)...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("run %s: exit %d, %q; want 2 and %q", c.args, code, stderr, c.msg)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A folder of the user's is refused by dptext slurm as the shards would refuse it, and left
// as it was.
func TestSlurmRefusesAUsersFolder(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "paper.pdf"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "slurm", "../../configs/ci.toml", "--shards", "2", "--out", out, "--dptext", "/x")
	if code != 1 || !strings.Contains(stderr, "not a dptext run folder") || !strings.Contains(stderr, "paper.pdf") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("the folder now holds %d entries", len(entries))
	}
}
