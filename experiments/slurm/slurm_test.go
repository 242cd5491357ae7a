package slurm

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestValidateAndScripts: a job with plain paths is valid and its array script runs shard
// ${SLURM_ARRAY_TASK_ID} of N; a newline in any path, or a space or % in the run folder
// (which #SBATCH --output carries), is refused naming the flag.
func TestValidateAndScripts(t *testing.T) {
	ok := Job{Name: "a b", Config: "/c/x.toml", Out: "/runs/x", Dir: "/w", Exe: "/bin/dptext", Shards: 3, CPUs: 2}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	s := ok.shardScript()
	for _, want := range []string{"#SBATCH --job-name=dptext-a_b\n", "#SBATCH --array=0-2\n", `/3" --jobs "${SLURM_CPUS_PER_TASK:-2}"`} {
		if !strings.Contains(s, want) {
			t.Errorf("shard script lacks %q:\n%s", want, s)
		}
	}
	for _, c := range []struct {
		job  Job
		want string
	}{
		{Job{Config: "/c/x\n.toml", Out: "/runs/x"}, "CONFIG"},
		{Job{Config: "/c/x.toml", Out: "/runs/my run"}, "--out"},
		{Job{Config: "/c/x.toml", Out: "/runs/100%"}, "--out"},
	} {
		if err := c.job.Validate(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want an error about %s", c.job, err, c.want)
		}
	}
	if ValidValue("8G") != true || ValidValue("8 G") != false {
		t.Error("ValidValue: 8G should be valid, 8 G not")
	}
}

// Write writes the three scripts executable, and refuses a named pipe in their place instead
// of blocking on it (os.WriteFile opened the pipe for writing and waited for a reader); the
// pipe stays a pipe. The mutant: os.WriteFile back in Write blocks, and the test fails after
// five seconds.
func TestWriteScriptsRefusesANamedPipe(t *testing.T) {
	out := t.TempDir()
	j := Job{Name: "x", Config: "/c/x.toml", Out: out, Dir: "/w", Exe: "/bin/dptext", Shards: 2, CPUs: 1}
	scripts, err := j.Write()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ShardScript, MergeScript, SubmitScript} {
		if info, err := os.Stat(filepath.Join(scripts, name)); err != nil || info.Mode().Perm() != 0o755 {
			t.Fatalf("%s: %v, %v; want an executable script", name, info, err)
		}
	}
	fifo := filepath.Join(scripts, MergeScript)
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := j.Write(); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a named pipe, not a regular file") {
			t.Errorf("Write over a named pipe: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Write blocked on a named pipe in the scripts folder")
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v, %v", info, err)
	}
}
