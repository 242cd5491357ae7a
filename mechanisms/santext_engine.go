package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
)

// distanceEM is the exponential mechanism over word vectors shared by SanText, SanText+ and TEM:
// the input row x is replaced by an output row y of the allowed set with probability
//
//	P(y | x) = exp(−(ε/2)·min(d(x, y), γ)) / Σ_y′ exp(−(ε/2)·min(d(x, y′), γ)),
//
// d the Euclidean distance of the raw vectors, γ = +Inf for no truncation. A row of the
// distribution is one pass over the vocabulary (distances in float64 from the float32 vectors,
// so that nearby words do not lose their distance to cancellation), never a |V|² matrix; the
// cumulative weights of the rows drawn are cached per input row (a pure function of the row,
// so the cache changes speed, never output).
type distanceEM struct {
	store   *embeddings.Store
	epsilon float64
	gamma   float64
	outputs []int // the rows that may be output, ascending; nil: every row
	cache   *rowCache
}

func newDistanceEM(store *embeddings.Store, epsilon, gamma float64, outputs []int, cacheRows int) (*distanceEM, error) {
	if cacheRows < 0 {
		return nil, fmt.Errorf("cache_rows = %d: want ≥ 0 (0 disables the cache)", cacheRows)
	}
	return &distanceEM{store: store, epsilon: epsilon, gamma: gamma, outputs: outputs, cache: newRowCache(cacheRows)}, nil
}

// size is the number of output rows.
func (e *distanceEM) size() int {
	if e.outputs == nil {
		return e.store.Len()
	}
	return len(e.outputs)
}

// row is the store row of output index j.
func (e *distanceEM) row(j int) int {
	if e.outputs == nil {
		return j
	}
	return e.outputs[j]
}

// ratings returns −min(d(x, y), γ) for every output y of input row x.
func (e *distanceEM) ratings(x int) []float64 {
	out := make([]float64, e.size())
	v := e.store.Vector(x)
	for j := range out {
		out[j] = -math.Min(euclidean(v, e.store.Vector(e.row(j))), e.gamma)
	}
	return out
}

// cumulative returns the normalised cumulative weights of input row x, cached.
func (e *distanceEM) cumulative(x int) []float64 {
	if c, ok := e.cache.get(x); ok {
		return c
	}
	c := ExponentialCumulative(e.ratings(x), e.epsilon/2)
	e.cache.put(x, c)
	return c
}

// sample draws the output row for input row x.
func (e *distanceEM) sample(rng *rand.Rand, x int) int {
	return e.row(SampleCumulative(rng, e.cumulative(x)))
}

// logProbabilities returns ln P(y | x) indexed by store row (−Inf for rows outside the outputs).
func (e *distanceEM) logProbabilities(x int) []float64 {
	lp := ExponentialLogProbabilities(e.ratings(x), e.epsilon/2)
	if e.outputs == nil {
		return lp
	}
	out := make([]float64, e.store.Len())
	for i := range out {
		out[i] = math.Inf(-1)
	}
	for j, r := range e.outputs {
		out[r] = lp[j]
	}
	return out
}

// Out-of-vocabulary policies of the sampling mechanisms (SanText, TEM, CusText).
const (
	// SampleOOVUniform replaces a token without a vector by a word drawn uniformly from the
	// mechanism's output words (SanText+'s published treatment). The output does not depend on
	// which unknown token it was, so two unknown tokens are at distance 0.
	SampleOOVUniform = "uniform"
	// SampleOOVKeep releases a token without a vector unchanged (SanText's, TEM's and CusText's
	// published code); it leaks the token, so no finite bound holds between documents whose
	// unknown tokens differ.
	SampleOOVKeep = "keep"
)

func checkSampleOOV(name, oov string) error {
	if oov != SampleOOVUniform && oov != SampleOOVKeep {
		return fmt.Errorf(`%s: oov = %q: want "uniform" or "keep"`, name, oov)
	}
	return nil
}

// positionalDistance sums, position by position, the word distance unit(x, y) of the guarantee
// (x, y both in the vocabulary) and handles unknown tokens by the OOV policy: two unknown tokens
// are at 0 under "uniform" (identical outputs) and, under "keep", at 0 only when equal; an
// unknown token against a known one has no finite bound. Documents of different lengths are at
// +Inf (the output has the input's length).
func positionalDistance(store *embeddings.Store, oov string, x, y []string, unit func(a, b int) float64) float64 {
	if len(x) != len(y) {
		return math.Inf(1)
	}
	total := 0.0
	for i := range x {
		a, okA := store.Lookup(x[i])
		b, okB := store.Lookup(y[i])
		switch {
		case okA && okB:
			total += unit(a, b)
		case !okA && !okB && (oov == SampleOOVUniform || x[i] == y[i]):
		default:
			return math.Inf(1)
		}
	}
	return total
}

// unchangedShare is the diagnostic "unchanged_share": the share of in-vocabulary positions
// released as the same word, with "oov_tokens".
func unchangedShare(store *embeddings.Store, original, private []string) map[string]float64 {
	same, known, oov := 0, 0, 0
	for i, w := range original {
		if _, ok := store.Lookup(w); !ok {
			oov++
			continue
		}
		known++
		if i < len(private) && private[i] == w {
			same++
		}
	}
	d := map[string]float64{"oov_tokens": float64(oov)}
	if known > 0 {
		d["unchanged_share"] = float64(same) / float64(known)
	}
	return d
}
