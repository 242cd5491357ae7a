package verdict

import (
	"math"
	"slices"
	"testing"

	"dptext/internal/rngs"
)

// referenceRanks is the straightforward ranking the radix sort replaces: sort a copy, then a
// binary search per value.
func referenceRanks(vals []float64) (sorted []float64, rank []int32) {
	sorted = slices.Clone(vals)
	slices.Sort(sorted)
	rank = make([]int32, len(vals))
	for b, x := range vals {
		rank[b] = int32(atOrAbove(sorted, x))
	}
	return sorted, rank
}

// rankInputs are replicate statistics of the shapes the stepdown meets: continuous values,
// many ties (a discrete utility), zeros (no variation), +∞ (unreached replicates), values that
// share their high bytes (every pass but the last skipped) and the empty and single cases.
func rankInputs() [][]float64 {
	rng := rngs.New(43, "ranks")
	var out [][]float64
	for _, n := range []int{0, 1, 2, 17, 1000, 20000} {
		cont, ties, mixed, narrow := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			cont[i] = math.Abs(rng.NormFloat64()) * 3
			ties[i] = float64(rng.IntN(7)) / 4
			switch rng.IntN(5) {
			case 0:
				mixed[i] = math.Inf(1)
			case 1:
				mixed[i] = 0
			default:
				mixed[i] = rng.ExpFloat64()
			}
			narrow[i] = math.Float64frombits(math.Float64bits(1.5) + uint64(rng.IntN(200)))
		}
		out = append(out, cont, ties, mixed, narrow)
	}
	return out
}

// The radix ranking gives exactly the ranks and the order of the comparison sort with binary
// searches, on every input shape. Mutants: ranks counting values strictly above (ties not at or
// above) or a pass that is skipped when it must run fail it.
func TestRankAtOrAboveMatchesSortAndSearch(t *testing.T) {
	var rk ranker
	for c, vals := range rankInputs() {
		wantSorted, wantRank := referenceRanks(vals)
		sorted, rank := make([]float64, len(vals)), make([]int32, len(vals))
		rk.rankAtOrAbove(vals, sorted, rank)
		if !slices.Equal(sorted, wantSorted) {
			t.Fatalf("input %d (%d values): sorted order differs", c, len(vals))
		}
		if !slices.Equal(rank, wantRank) {
			t.Fatalf("input %d (%d values): ranks differ", c, len(vals))
		}
	}
}

// BenchmarkRankAtOrAbove times ranking 20,000 replicate statistics (a comparison of
// mechanisms.toml's verdict) with the radix sort against the comparison sort and binary
// searches it replaced, in the same process.
func BenchmarkRankAtOrAbove(b *testing.B) {
	rng := rngs.New(43, "rank-bench")
	vals := make([]float64, 20000)
	for i := range vals {
		vals[i] = math.Abs(rng.NormFloat64())
	}
	b.Run("radix", func(b *testing.B) {
		var rk ranker
		sorted, rank := make([]float64, len(vals)), make([]int32, len(vals))
		for b.Loop() {
			rk.rankAtOrAbove(vals, sorted, rank)
		}
	})
	b.Run("reference=sort+search", func(b *testing.B) {
		for b.Loop() {
			referenceRanks(vals)
		}
	})
}
