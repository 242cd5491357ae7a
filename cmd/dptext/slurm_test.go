package main

import (
	"os"
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
	out := filepath.Join(t.TempDir(), "run dir")
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
		"#SBATCH --mem=4G\n", "#SBATCH --cpus-per-task=4\n", "'/opt/dp/dptext' run ", "--out '" + out + "' --shard auto"} {
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
