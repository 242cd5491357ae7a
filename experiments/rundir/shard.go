package rundir

import (
	"fmt"
	"strconv"
	"strings"

	"dptext/experiments/runconfig"
)

// Shard selects part K of N of a run's cells (K counts from 0, as array indices of Slurm,
// Kubernetes Indexed Jobs and AWS Batch do). The zero Shard (N = 0) is the whole run.
type Shard struct {
	K int `json:"k"`
	N int `json:"n"`
}

// Sharded reports whether s selects a part of a run rather than the whole.
func (s Shard) Sharded() bool { return s.N > 0 }

// String is "K/N", the form ParseShard reads.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// name is the shard's file name stem in a run folder's shards/ directory: "K-of-N".
func (s Shard) name() string { return fmt.Sprintf("%d-of-%d", s.K, s.N) }

// MaxShards bounds the shard count N: a config has at most runconfig.MaxCells cells, and a
// shard without a cell would run nothing.
const MaxShards = runconfig.MaxCells

// ParseShard reads "K/N" with 0 ≤ K < N ≤ MaxShards.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("--shard %q: want K/N (shard K of N, K from 0 to N-1) or auto", s)
	}
	return newShard(k, n, "--shard "+s)
}

func newShard(k, n, what string) (Shard, error) {
	ki, kerr := strconv.Atoi(strings.TrimSpace(k))
	ni, nerr := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case kerr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("%s: want two whole numbers K and N", what)
	case ni < 1:
		return Shard{}, fmt.Errorf("%s: the shard count N = %d must be at least 1", what, ni)
	case ni > MaxShards:
		return Shard{}, fmt.Errorf("%s: the shard count N = %d: at most %d (the most cells a config may have)", what, ni, MaxShards)
	case ki < 0 || ki >= ni:
		return Shard{}, fmt.Errorf("%s: the shard index K = %d must be from 0 to %d (N-1)", what, ki, ni-1)
	}
	return Shard{K: ki, N: ni}, nil
}

// ShardFromEnv reads the shard of this task from a job array's environment (getenv is
// os.Getenv in the command): Slurm (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, and
// SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_STEP for arrays not starting at 0 or with a step),
// Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX) and AWS Batch array jobs
// (AWS_BATCH_JOB_ARRAY_INDEX). The last two do not export the count: it is shards when
// positive, else DPTEXT_SHARDS. For Slurm, a positive shards must equal the array's count,
// except in a one-task array (`sbatch --array=K`, the rerun of one task), where the task id is
// the shard and shards the count; without shards such a task other than 0 is an error, since
// taking it for shard 0 of 1 would run every cell.
func ShardFromEnv(getenv func(string) string, shards int) (Shard, error) {
	count := func(who string) (string, error) {
		if shards > 0 {
			return strconv.Itoa(shards), nil
		}
		if v := getenv("DPTEXT_SHARDS"); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("--shard auto: %s gives this task's index but not the number of shards: pass --shards N or set DPTEXT_SHARDS", who)
	}
	if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		n := getenv("SLURM_ARRAY_TASK_COUNT")
		if n == "" {
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID = %s but SLURM_ARRAY_TASK_COUNT is unset (a Slurm older than 17.02?): pass --shard K/N", id)
		}
		num := func(name, def string) (int, error) {
			v := getenv(name)
			if v == "" {
				v = def
			}
			i, err := strconv.Atoi(v)
			if err != nil {
				return 0, fmt.Errorf("--shard auto: %s = %q is not a whole number", name, v)
			}
			return i, nil
		}
		idi, err := num("SLURM_ARRAY_TASK_ID", "")
		if err != nil {
			return Shard{}, err
		}
		if strings.TrimSpace(n) == "1" {
			// `sbatch --array=K` (rerunning one task) makes a one-task array: its count says
			// nothing of the run's shards, and its task id K is the shard.
			if shards > 0 {
				return newShard(id, strconv.Itoa(shards), fmt.Sprintf("--shard auto (Slurm task %s of a one-task array, --shards %d)", id, shards))
			}
			if idi != 0 {
				return Shard{}, fmt.Errorf("--shard auto: Slurm task %d is a one-task array (as `sbatch --array=%d` makes), which does not tell the shard count: pass --shards N to run shard %d of N, or --shard %d/N", idi, idi, idi, idi)
			}
		}
		lo, err := num("SLURM_ARRAY_TASK_MIN", "0")
		if err != nil {
			return Shard{}, err
		}
		step, err := num("SLURM_ARRAY_TASK_STEP", "1")
		if err != nil {
			return Shard{}, err
		}
		if step < 1 || (idi-lo)%step != 0 {
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID %d is not MIN %d plus a multiple of STEP %d", idi, lo, step)
		}
		s, err := newShard(strconv.Itoa((idi-lo)/step), n, fmt.Sprintf("--shard auto (Slurm task %d of array %s..:%d, %s tasks)", idi, strconv.Itoa(lo), step, n))
		if err == nil && shards > 0 && shards != s.N {
			err = fmt.Errorf("--shard auto: --shards %d but the Slurm array has %d tasks", shards, s.N)
		}
		return s, err
	}
	for _, v := range []string{"JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"} {
		if id := getenv(v); id != "" {
			n, err := count(v)
			if err != nil {
				return Shard{}, err
			}
			return newShard(id, n, fmt.Sprintf("--shard auto (%s = %s, %s shards)", v, id, n))
		}
	}
	return Shard{}, fmt.Errorf("--shard auto: none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX is set: run inside a job array or pass --shard K/N")
}
