package slurm

import (
	"strings"
	"testing"
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
