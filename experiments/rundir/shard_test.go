package rundir

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"0/3": {K: 0, N: 3}, "2/3": {K: 2, N: 3}, "0/1": {K: 0, N: 1}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{"3/3": "from 0 to 2", "-1/3": "from 0 to 2", "1/0": "at least 1", "1": "want K/N", "a/3": "whole numbers"} {
		if _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseShard(%q): error %v, want one saying %q", in, err, msg)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	good := []struct {
		env    func(string) string
		shards int
		want   Shard
	}{
		{env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "4"), 0, Shard{K: 2, N: 4}},
		// An array 1-4 (sbatch --array=1-4): task 1 is shard 0.
		{env("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "1"), 0, Shard{K: 0, N: 4}},
		// An array 10-16:3 (tasks 10, 13, 16): task 16 is shard 2.
		{env("SLURM_ARRAY_TASK_ID", "16", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "10", "SLURM_ARRAY_TASK_STEP", "3"), 3, Shard{K: 2, N: 3}},
		{env("JOB_COMPLETION_INDEX", "4"), 5, Shard{K: 4, N: 5}},
		{env("JOB_COMPLETION_INDEX", "0", "DPTEXT_SHARDS", "2"), 0, Shard{K: 0, N: 2}},
		{env("AWS_BATCH_JOB_ARRAY_INDEX", "1", "DPTEXT_SHARDS", "2"), 0, Shard{K: 1, N: 2}},
		// sbatch --array=2 reruns shard 2 of 3: a one-task array, the count from --shards.
		{env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "1", "SLURM_ARRAY_TASK_MIN", "2"), 3, Shard{K: 2, N: 3}},
	}
	for i, c := range good {
		got, err := ShardFromEnv(c.env, c.shards)
		if err != nil || got != c.want {
			t.Errorf("case %d: got %v, %v; want %v", i, got, err, c.want)
		}
	}
	bad := []struct {
		env    func(string) string
		shards int
		msg    string
	}{
		{env(), 0, "none of SLURM_ARRAY_TASK_ID"},
		{env("SLURM_ARRAY_TASK_ID", "2"), 0, "SLURM_ARRAY_TASK_COUNT is unset"},
		{env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4"), 0, "from 0 to 3"},
		{env("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "4"), 3, "--shards 3 but the Slurm array has 4"},
		{env("JOB_COMPLETION_INDEX", "1"), 0, "--shards N or set DPTEXT_SHARDS"},
		{env("AWS_BATCH_JOB_ARRAY_INDEX", "5"), 5, "from 0 to 4"},
		// Before, this ran "shard 0/1": every cell, into the shards' folder.
		{env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "1", "SLURM_ARRAY_TASK_MIN", "2"), 0, "pass --shards N to run shard 2 of N"},
	}
	for i, c := range bad {
		if _, err := ShardFromEnv(c.env, c.shards); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("bad case %d: error %v, want one saying %q", i, err, c.msg)
		}
	}
}
