package runner

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"

	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
)

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
func (r *runner) shardCells(cells []cell, s rundir.Shard) (mine []cell, ownsFit map[string]bool) {
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
