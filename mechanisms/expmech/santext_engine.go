package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
	"dptext/mechanisms/internal/rowcache"
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
	cache   *rowcache.Cache
	shared  *DistanceRows // nil: rows computed per mechanism
}

func newDistanceEM(store *embeddings.Store, epsilon, gamma float64, outputs []int, cacheRows int) (*distanceEM, error) {
	if cacheRows < 0 {
		return nil, fmt.Errorf("cache_rows = %d: want ≥ 0 (0 disables the cache)", cacheRows)
	}
	return &distanceEM{store: store, epsilon: epsilon, gamma: gamma, outputs: outputs, cache: rowcache.New(cacheRows)}, nil
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
	if e.shared != nil {
		return e.ratingsFromDistances(e.shared.get([]int{x}))[0]
	}
	out := make([]float64, e.size())
	v := e.store.Vector(x)
	for j := range out {
		out[j] = -math.Min(linalg.Euclidean(v, e.store.Vector(e.row(j))), e.gamma)
	}
	return out
}

// ratingsBatch returns ratings(x) for every x of xs: from the shared distance rows when the
// mechanism has them (ShareDistances), else computed over its outputs (distancesBatch).
func (e *distanceEM) ratingsBatch(xs []int) [][]float64 {
	if e.shared != nil {
		return e.ratingsFromDistances(e.shared.get(xs))
	}
	ds := distancesBatch(e.store, e.outputs, xs)
	g := e.gamma
	for _, d := range ds {
		linalg.NegMin(d, d, g)
	}
	return ds
}

// distancesBatch returns, for every x of xs, the Euclidean distances from x to every output
// row (outputs ascending; nil: every row of store). Four input rows share each pass over the
// output rows: the four sums are independent dependency chains (the single-row loop is bound
// by the latency of its one chain of additions) and each vocabulary vector is loaded once for
// the four; with AVX2, an assembly kernel (linalg.SqDist4x4) takes the four inputs in one
// register and four output rows at a time. Every sum is the same float64 expression in the same
// order as in linalg.Euclidean, so each distance is a pure function of the two words,
// bit-identical to Euclidean's whatever the batch.
func distancesBatch(store *embeddings.Store, outputs []int, xs []int) [][]float64 {
	size, row := store.Len(), func(j int) int { return j }
	if outputs != nil {
		size, row = len(outputs), func(j int) int { return outputs[j] }
	}
	out := make([][]float64, len(xs))
	dim := store.Dim()
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		r0, r1, r2, r3 := make([]float64, size), make([]float64, size), make([]float64, size), make([]float64, size)
		q := make([]float64, 4*dim) // the four inputs, interleaved by dimension
		for k := range 4 {
			for t, v := range store.Vector(xs[i+k]) {
				q[4*t+k] = float64(v)
			}
		}
		rs := [4][]float64{r0, r1, r2, r3}
		j := 0
		var sums [16]float64
		for ; j+4 <= size; j += 4 {
			ys := [4][]float32{store.Vector(row(j)), store.Vector(row(j + 1)), store.Vector(row(j + 2)), store.Vector(row(j + 3))}
			if !linalg.SqDist4x4(&sums, q, &ys) {
				break
			}
			for r := range 4 {
				for c := range 4 {
					rs[c][j+r] = math.Sqrt(sums[4*r+c])
				}
			}
		}
		for ; j < size; j++ {
			y := store.Vector(row(j))
			var s0, s1, s2, s3 float64
			for t, yt := range y {
				f := float64(yt)
				d0 := q[4*t] - f
				d1 := q[4*t+1] - f
				d2 := q[4*t+2] - f
				d3 := q[4*t+3] - f
				s0 += d0 * d0
				s1 += d1 * d1
				s2 += d2 * d2
				s3 += d3 * d3
			}
			r0[j], r1[j], r2[j], r3[j] = math.Sqrt(s0), math.Sqrt(s1), math.Sqrt(s2), math.Sqrt(s3)
		}
		out[i], out[i+1], out[i+2], out[i+3] = r0, r1, r2, r3
	}
	for ; i < len(xs); i++ {
		d := make([]float64, size)
		v := store.Vector(xs[i])
		for j := range d {
			d[j] = linalg.Euclidean(v, store.Vector(row(j)))
		}
		out[i] = d
	}
	return out
}

// cumulativeRows returns the normalised cumulative weights of every distinct input row of xs,
// taking cached rows from the cache and computing the others together (ratingsBatch).
func (e *distanceEM) cumulativeRows(xs []int) map[int][]float64 {
	rows, missing := e.cache.Lookup(xs)
	cums := e.ratingsBatch(missing) // fresh rows, turned into their cumulative weights
	mechanisms.ExponentialCumulativeInPlace(cums, e.epsilon/2)
	for k, c := range cums {
		rows[missing[k]] = c
		e.cache.Put(missing[k], c)
	}
	return rows
}

// applyWindow is how many positions Apply prepares together: at most that many rows of |V|
// cumulative weights (20 MB for 20,000 words) are held at once.
const applyWindow = 128

// applyWindows calls each(lo, hi, rows) for consecutive windows [lo, hi) of n positions, rows
// holding the cumulative weights of every row that sampled(i) reports for i in the window
// (ok false: position i draws nothing from the mechanism, or draws only with some probability
// and is computed on demand). The rows are pure functions of the input rows, so preparing them
// ahead changes speed, never output.
func (e *distanceEM) applyWindows(n int, sampled func(i int) (row int, ok bool), each func(lo, hi int, rows map[int][]float64)) {
	for lo := 0; lo < n; lo += applyWindow {
		hi := min(lo+applyWindow, n)
		var ids []int
		for i := lo; i < hi; i++ {
			if r, ok := sampled(i); ok {
				ids = append(ids, r)
			}
		}
		each(lo, hi, e.cumulativeRows(ids))
	}
}

// sampleWith draws the output row for input row x from rows[x] when prepared, else as sample.
func (e *distanceEM) sampleWith(rng *rand.Rand, x int, rows map[int][]float64) int {
	if c := rows[x]; c != nil {
		return e.row(mechanisms.SampleCumulative(rng, c))
	}
	return e.sample(rng, x)
}

// cumulative returns the normalised cumulative weights of input row x, cached.
func (e *distanceEM) cumulative(x int) []float64 {
	if c, ok := e.cache.Get(x); ok {
		return c
	}
	c := mechanisms.ExponentialCumulative(e.ratings(x), e.epsilon/2)
	e.cache.Put(x, c)
	return c
}

// sample draws the output row for input row x.
func (e *distanceEM) sample(rng *rand.Rand, x int) int {
	return e.row(mechanisms.SampleCumulative(rng, e.cumulative(x)))
}

// logProbabilities returns ln P(y | x) indexed by store row (−Inf for rows outside the outputs).
func (e *distanceEM) logProbabilities(x int) []float64 {
	lp := mechanisms.ExponentialLogProbabilities(e.ratings(x), e.epsilon/2)
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

// positionalReason says why positionalDistance(store, oov, x, y, …) is +Inf: the first
// position whose pair of words has no finite bound (why gives the mechanism's reason for two
// in-vocabulary rows, "" when they have one), or the lengths or unknown words; "" when the
// distance is finite.
func positionalReason(store *embeddings.Store, oov string, x, y []string, why func(a, b int) string) string {
	if len(x) != len(y) {
		return fmt.Sprintf("the documents' lengths differ (%d and %d words)", len(x), len(y))
	}
	for i := range x {
		a, okA := store.Lookup(x[i])
		b, okB := store.Lookup(y[i])
		switch {
		case okA && okB:
			if r := why(a, b); r != "" {
				return fmt.Sprintf("position %d (%q vs %q): %s", i+1, x[i], y[i], r)
			}
		case !okA && !okB && (oov == SampleOOVUniform || x[i] == y[i]):
		default:
			return fmt.Sprintf("position %d (%q vs %q): out-of-vocabulary words are released unchanged", i+1, x[i], y[i])
		}
	}
	return ""
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
