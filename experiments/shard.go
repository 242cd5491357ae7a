package experiments

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"dptext/registry"
	"dptext/runconfig"
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

// ParseShard reads "K/N" with 0 ≤ K < N.
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

// shardItem is a unit to place on a shard: its stable name and its expected cost.
type shardItem struct {
	key  string
	cost float64
}

// assignShards places each item on one of n shards and returns the shard of each.
//
// The assignment is rendezvous (highest-random-weight) hashing with bounded loads: every item
// ranks the shards by a hash of (item key, shard) and goes to the first shard in its ranking
// whose load (summed cost) stays within the cap
//
//	cap = total/n + (1−1/n)·max cost.
//
// Items are placed in order of decreasing cost, ties by key hash, an order that does not
// depend on which other items exist. Balance: when an item x is placed the loads sum to at
// most total − cost(x), so the least loaded shard has at most (total − cost(x))/n, and adding
// x to it stays within total/n + (1−1/n)·cost(x) ≤ cap: every item finds a shard, and no
// shard's load exceeds cap. Stability: an item sits on its first-ranked shard unless the cap
// binds, so adding an item moves the other items only where the cap binds, and then mostly
// to their second choice: in the tests, adding one cell to a 450-cell sweep on 4 shards moves
// about 5 others (1 %), where list scheduling or a round robin moves about half. A slack above
// total/n would move fewer still (about 2 at 10 %) but leave the heaviest shard 10–20 % above
// the mean instead of 1–10 %: balance, which sets the wall time, was preferred. The result depends only on the items' keys and
// costs, not on their order in the list.
func assignShards(items []shardItem, n int) []int {
	out := make([]int, len(items))
	if n <= 1 {
		return out
	}
	total, maxCost := 0.0, 0.0
	for _, it := range items {
		total += it.cost
		maxCost = max(maxCost, it.cost)
	}
	limit := total/float64(n) + (1-1/float64(n))*maxCost
	limit *= 1 + 1e-12 // rounding of the sums must not make the bound unreachable
	order := make([]int, len(items))
	hashes := make([]uint64, len(items))
	for i := range order {
		order[i] = i
		hashes[i] = hash64(items[i].key)
	}
	sort.SliceStable(order, func(a, b int) bool {
		ia, ib := items[order[a]], items[order[b]]
		if ia.cost != ib.cost {
			return ia.cost > ib.cost
		}
		if hashes[order[a]] != hashes[order[b]] {
			return hashes[order[a]] < hashes[order[b]]
		}
		return ia.key < ib.key
	})
	load := make([]float64, n)
	rank := make([]int, n)
	score := make([]uint64, n)
	for _, i := range order {
		for k := range rank {
			rank[k], score[k] = k, hash64(fmt.Sprintf("%s\x00%d", items[i].key, k))
		}
		sort.Slice(rank, func(a, b int) bool { return score[rank[a]] > score[rank[b]] })
		best := -1
		for _, k := range rank {
			if load[k]+items[i].cost <= limit {
				best = k
				break
			}
		}
		if best < 0 { // unreachable by the bound above; kept total rather than panicking
			best = 0
			for k := range load {
				if load[k] < load[best] {
					best = k
				}
			}
		}
		out[i] = best
		load[best] += items[i].cost
	}
	return out
}

func hash64(s string) uint64 {
	sum := sha256.Sum256([]byte(s))
	return binary.BigEndian.Uint64(sum[:8])
}

// cellCost is the expected cost of a cell: its mechanism's registry Cost times its set's
// author count (the evaluation documents, and so the scorers' work, grow with the authors).
func cellCost(cfg *runconfig.Config, c cell) float64 {
	return registry.Mechanisms[cfg.Mechanisms[c.mech].Name].Cost * float64(max(1, cfg.Sets[c.set].Authors))
}

// shardCells partitions cells of cfg over s.N shards (see assignShards) and returns the
// cells of shard s.K, and the fit keys (fitKeys) this shard writes: each key is written by
// the shard of the first cell, in the order of cells, that uses it.
func (r *runner) shardCells(cells []cell, s Shard) (mine []cell, ownsFit map[string]bool) {
	items := make([]shardItem, len(cells))
	for i, c := range cells {
		items[i] = shardItem{key: r.cellPath(c), cost: cellCost(r.cfg, c)}
	}
	at := assignShards(items, s.N)
	ownsFit = map[string]bool{}
	seen := map[string]bool{}
	for i, c := range cells {
		for _, k := range r.fitKeys(c) {
			if !seen[k] {
				seen[k] = true
				ownsFit[k] = at[i] == s.K
			}
		}
		if at[i] == s.K {
			mine = append(mine, c)
		}
	}
	return mine, ownsFit
}
