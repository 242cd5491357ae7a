package bench

import (
	"math"
	"math/rand/v2"
	"sort"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
)

// logProber is a mechanism that states the exact output distribution of a word over the
// vocabulary's rows (SanText, TEM, CusText, expmech, Random, SynTF's substitution).
type logProber interface {
	LogProbabilities(word string) ([]float64, bool)
}

// positional is a mechanism that says whether every position's output depends on its own
// word only.
type positional interface {
	IndependentPositions() bool
}

// Reference is the straightforward per-token implementation of a whole-vocabulary sampler's
// distribution, the yardstick of `dptext bench mechanisms`: for every token, the word's
// distribution over the whole vocabulary is computed from scratch (LogProbabilities: O(|V|)
// ratings and exponentials, no row shared between tokens or cached), and one row is drawn by
// the inverse of its cumulative distribution. A token the mechanism does not privatise
// (LogProbabilities false: a word kept by oov = "keep", a CusText+ stopword) is released
// unchanged. It releases the same distribution as the mechanism, word by word, but not the
// same words: it draws one uniform per token where the mechanisms draw in their own order.
type Reference struct {
	probs logProber
	store *embeddings.Store
}

// NewReference returns the per-token reference of m over store's rows, or false when m has no
// per-word distribution in closed form (a noise-then-decode mechanism, the truncated Gumbel
// mechanism, expmech's context rating or two-stage variant, scrub) or is not a token sampler
// (termFrequencies marks SynTF, whose released words are each a draw from its source word's row:
// the reference then substitutes every token of the document as a source word).
func NewReference(m mechanisms.Mechanism, store *embeddings.Store, termFrequencies bool) (*Reference, bool) {
	lp, ok := m.(logProber)
	if !ok {
		return nil, false
	}
	if p, ok := m.(positional); (!ok || !p.IndependentPositions()) && !termFrequencies {
		return nil, false
	}
	return &Reference{probs: lp, store: store}, true
}

// Apply releases doc token by token with rng.
func (r *Reference) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	for i, w := range doc {
		lp, ok := r.probs.LogProbabilities(w)
		if !ok {
			out[i] = w
			continue
		}
		out[i] = r.store.Word(sampleLog(rng, lp))
	}
	return out
}

// sampleLog draws index i with probability ∝ exp(lp[i]) (−Inf: never) by the inverse of the
// cumulative distribution, relative to the largest entry so that nothing overflows.
func sampleLog(rng *rand.Rand, lp []float64) int {
	top := math.Inf(-1)
	for _, x := range lp {
		top = max(top, x)
	}
	total := 0.0
	for _, x := range lp {
		total += math.Exp(x - top)
	}
	u := rng.Float64() * total
	last := 0
	for i, x := range lp {
		p := math.Exp(x - top)
		if p == 0 {
			continue
		}
		last = i
		if u < p {
			return i
		}
		u -= p
	}
	return last // rounding left u a hair above the sum: the last possible row
}

// gumbelParams is the truncated Gumbel mechanism's calibration.
type gumbelParams interface {
	Scale() float64
	DeltaRange() (float64, float64)
	PoissonMean() float64
	OOV() string
}

// GumbelReference is the straightforward per-token implementation of the truncated Gumbel
// mechanism (Carvalho et al.): for every known token, the distances to the whole vocabulary
// computed and sorted by (distance, row) from scratch, k ~ Poisson(μ) truncated to |V| − 1,
// and the word among the k nearest with the smallest distance plus Gumbel(0, b) noise truncated
// to [−Δ_max, Δ_max] (k = 0: the word itself); an unknown word kept or replaced uniformly as the
// mechanism's policy says.
type GumbelReference struct {
	params gumbelParams
	store  *embeddings.Store
}

// Apply releases doc token by token with rng.
func (r *GumbelReference) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	n := r.store.Len()
	b, mu := r.params.Scale(), r.params.PoissonMean()
	_, bound := r.params.DeltaRange()
	order := make([]int, n)
	dist := make([]float64, n)
	for i, w := range doc {
		x, ok := r.store.Lookup(w)
		if !ok {
			if r.params.OOV() == "keep" {
				out[i] = w
			} else {
				out[i] = r.store.Word(rng.IntN(n))
			}
			continue
		}
		for j := range n {
			order[j], dist[j] = j, linalg.Euclidean(r.store.Vector(x), r.store.Vector(j))
		}
		sort.Slice(order, func(p, q int) bool {
			if dist[order[p]] != dist[order[q]] {
				return dist[order[p]] < dist[order[q]]
			}
			return order[p] < order[q]
		})
		var k int
		for k = poisson(rng, mu); k > n-1; k = poisson(rng, mu) {
		}
		best, bestScore := x, math.Inf(1)
		for _, j := range order[:k] {
			g := math.Inf(1)
			for math.Abs(g) > bound {
				g = -b * math.Log(-math.Log(1-rng.Float64())) // 1 − U ∈ (0, 1]: never ln 0 of 0
			}
			if s := dist[j] + g; s < bestScore {
				best, bestScore = j, s
			}
		}
		out[i] = r.store.Word(best)
	}
	return out
}

// poisson draws from Poisson(mu) by Knuth's product of uniforms.
func poisson(rng *rand.Rand, mu float64) int {
	l, k, p := math.Exp(-mu), 0, rng.Float64()
	for p > l {
		k++
		p *= rng.Float64()
	}
	return k
}
