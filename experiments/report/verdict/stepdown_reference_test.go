package verdict

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/internal/rngs"
)

// referenceStepdown is the stepdown as first built for issue 43, kept as the reference of the
// faster one: a comparison sort and a binary search per replicate for the ranks, a quickselect
// over the running minima at every step, and another per comparison for its critical value.
func referenceStepdown(cs []comparison, B int, alpha float64) stepdownResult {
	m := len(cs)
	out := stepdownResult{raw: make([]float64, m), adj: make([]float64, m), crit: make([]float64, m), first: math.NaN()}
	if m == 0 {
		return out
	}
	ranks := make([][]int32, m) // ranks[k][b]: B+1 times replicate b's marginal p in comparison k
	obs := make([]int, m)       // B+1 times the unadjusted p
	parallelChunks(m, 4, func(from, to int) {
		vals, sorted := make([]float64, B), make([]float64, B)
		for k := from; k < to; k++ {
			cs[k].replicateStats(vals)
			copy(sorted, vals)
			slices.Sort(sorted)
			rank := make([]int32, B)
			for b, x := range vals {
				rank[b] = int32(atOrAbove(sorted, x))
			}
			ranks[k] = rank
			obs[k] = 1 + atOrAbove(sorted, cs[k].t())
		}
	})
	order := make([]int, m)
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(i, j int) bool { return obs[order[i]] < obs[order[j]] })
	K := rejectionCount(alpha, B)
	run := make([]int32, B) // the running minimum rank over the comparisons from step j on
	for b := range run {
		run[b] = math.MaxInt32
	}
	buf := make([]float64, B)
	stepP := make([]float64, m)
	stepN := make([]int, m) // the step's critical count: reject when obs < it
	for j := m - 1; j >= 0; j-- {
		rank := ranks[order[j]]
		n := 0
		for b := range run {
			run[b] = min(run[b], rank[b])
			if int(run[b]) <= obs[order[j]] {
				n++
			}
			buf[b] = float64(run[b])
		}
		stepP[j] = float64(1+n) / float64(B+1)
		stepN[j] = 0
		if K >= 0 && K < B {
			stepN[j] = int(-refKthLargest(refNegate(buf), K)) // the (K+1)-th smallest
		}
	}
	out.first = distuv.UnitNormal.Quantile(1 - float64(stepN[0])/float64(B+1)/2)
	if len(cs) > 0 {
		out.first = fromNormal(out.first, cs[0].clusters)
	}
	stop := m // the first step not rejected
	at := make([]int, m)
	p := 0.0
	for j, k := range order {
		p = math.Max(p, stepP[j])
		out.adj[k] = math.Min(1, p)
		if stop == m && !(p < alpha) {
			stop = j
		}
		at[k] = j
		if stop < m {
			at[k] = stop
		}
		out.raw[k] = float64(obs[k]) / float64(B+1)
	}
	// T_k > crit exactly when obs_k < the step's critical count: crit is the (count − 1)-th
	// largest of the comparison's own replicate statistics.
	parallelChunks(m, 4, func(from, to int) {
		vals := make([]float64, B)
		for k := from; k < to; k++ {
			out.crit[k] = math.Inf(1)
			if n := stepN[at[k]] - 1; n >= 1 && n <= B {
				cs[k].replicateStats(vals)
				out.crit[k] = fromNormal(refKthLargest(vals, n-1), cs[k].clusters)
			}
		}
	})
	return out
}

func refKthLargest(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		a, b, c := xs[lo], xs[mid], xs[hi]
		pivot := math.Max(math.Min(a, b), math.Min(math.Max(a, b), c)) // median of three
		i, j := lo, hi
		for i <= j {
			for xs[i] > pivot {
				i++
			}
			for xs[j] < pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}

func refNegate(xs []float64) []float64 {
	for i := range xs {
		xs[i] = -xs[i]
	}
	return xs
}

// randomFamily is m comparisons of B replicates with the shapes the stepdown meets: a
// continuous difference, one on a coarse lattice (ties), one whose curve misses the level in a
// few replicates (NaN), one without variation (se 0), and true effects of several sizes.
func randomFamily(seed string, m, B int) []comparison {
	rng := rngs.New(43, seed)
	common := make([]float64, B) // shared by every comparison: their dependence
	for b := range common {
		common[b] = rng.NormFloat64()
	}
	cs := make([]comparison, m)
	for k := range cs {
		x, y := make([]float64, B), make([]float64, B)
		kind := k % 5
		for b := range x {
			x[b] = 0.6*common[b] + rng.NormFloat64()
			switch kind {
			case 1:
				x[b] = math.Round(x[b]*2) / 2
			case 2:
				if rng.IntN(40) == 0 {
					x[b] = math.NaN()
				}
			case 3:
				x[b] = 0
			}
		}
		diff := 0.0
		if kind == 4 {
			diff = float64(k%9) * 0.7
		}
		c := comparison{x: x, y: y, diff: diff, clusters: 30}
		var n, sum, sq float64
		for b := range x {
			if !math.IsNaN(x[b]) {
				n++
				sum += x[b]
				sq += x[b] * x[b]
			}
		}
		c.se = math.Sqrt(math.Max(0, (sq-sum*sum/n)/(n-1)))
		for b := range x { // centre the replicates on the estimate
			x[b] += diff
		}
		cs[k] = c
	}
	return cs
}

// The stepdown gives exactly the reference's unadjusted and adjusted p-values, critical values
// and first-step critical value, on families of 1 to 300 comparisons with ties, unreached
// replicates, comparisons without variation and true effects, at replicate counts where α
// allows rejections and where it allows none (B = 30: K < 0). Mutants: the running critical
// count not moved down (kth fixed at its first value) and the critical value read at rank n+1
// each fail it.
func TestStepdownMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		m, B  int
		alpha float64
	}{{1, 2000, 0.05}, {7, 30, 0.05}, {25, 2000, 0.05}, {60, 4999, 0.01}, {300, 3000, 0.05}} {
		cs := randomFamily(fmt.Sprintf("stepdown-reference/%d/%d", tc.m, tc.B), tc.m, tc.B)
		got, want := stepdown(cs, tc.B, tc.alpha), referenceStepdown(cs, tc.B, tc.alpha)
		same := func(a, b []float64) bool {
			return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
		}
		if !same(got.raw, want.raw) || !same(got.adj, want.adj) || !same(got.crit, want.crit) || !(got.first == want.first || math.IsNaN(got.first) && math.IsNaN(want.first)) {
			t.Errorf("m %d, B %d: the stepdown differs from the reference (first %g against %g)", tc.m, tc.B, got.first, want.first)
		}
		significant := 0
		for _, p := range got.adj {
			if p < tc.alpha {
				significant++
			}
		}
		t.Logf("m %d, B %d: %d significant", tc.m, tc.B, significant)
	}
}

// BenchmarkStepdown times the stepdown on 420 comparisons of 17,000 replicates (the power
// test's family) against the reference in the same process.
func BenchmarkStepdown(b *testing.B) {
	cs := randomFamily("stepdown-bench", 420, 17000)
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			stepdown(cs, 17000, 0.05)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			referenceStepdown(cs, 17000, 0.05)
		}
	})
}
