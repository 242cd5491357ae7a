package mechanisms

import "math"

// blockSize is how many positions of a document get their rating rows in one matrix product.
const blockSize = 64

// rowsCumulative says whether the cached rows are cumulative exponential-mechanism weights
// (embedding rating, one stage: the whole distribution depends only on the token) rather than
// embedding ratings (combined with context or cut to candidates per position).
func (m *ExpMech) rowsCumulative() bool {
	return m.opts.Rating == ExpMechRatingEmbedding && m.opts.Candidates == 0
}

// rows returns the row of every in-vocabulary token of block, from the cache or computed in one
// matrix product: cumulative weights when rowsCumulative, embedding ratings otherwise. The
// context rating with weight 1 needs no embedding rows and gets none.
func (m *ExpMech) rows(block []string) map[int][]float64 {
	if m.opts.Rating == ExpMechRatingContext && m.opts.ContextWeight == 1 {
		return nil
	}
	ids := make([]int, 0, len(block))
	for _, w := range block {
		if id, ok := m.store.Lookup(w); ok {
			ids = append(ids, id)
		}
	}
	rows, missing := m.cache.lookup(ids)
	if len(missing) == 0 {
		return rows
	}
	n := m.store.Len()
	cos := m.cosines(missing)
	var scratch []float64 // the rating row, when only its cumulative weights are kept
	if m.rowsCumulative() {
		scratch = make([]float64, n)
	}
	for q, id := range missing {
		rating := scratch
		if rating == nil {
			rating = make([]float64, n)
		}
		embeddingRatings(rating, cos[q*n:(q+1)*n])
		row := rating
		if m.rowsCumulative() {
			row = ExponentialCumulative(rating, m.epsilon/2)
		}
		rows[id] = row
		m.cache.put(id, row)
	}
	return rows
}

// cosines returns the cosine of each row of ids with every vocabulary row (one matrix product),
// row-major.
func (m *ExpMech) cosines(ids []int) []float32 {
	n, dim := m.store.Len(), m.store.Dim()
	query := make([]float32, len(ids)*dim)
	for q, id := range ids {
		copy(query[q*dim:], m.unit[id*dim:(id+1)*dim])
	}
	cos := make([]float32, len(ids)*n)
	mulABt(cos, query, len(ids), m.unit, n, dim)
	return cos
}

// embeddingRatings sets rating to the embedding rating (cos + 1)/2 of each cosine.
func embeddingRatings(rating []float64, cos []float32) {
	for v, c := range cos {
		rating[v] = min(max((float64(c)+1)/2, 0), 1) // clip float rounding of |cos| ≤ 1
	}
}

// LogProbabilities returns the natural logarithms of the exact output distribution of one
// position whose original token is word, P(v) ∝ exp(ε·ρ(word, v)/2), where the distribution
// depends on that token alone: the embedding rating in one stage (for an out-of-vocabulary
// word under oov = "uniform", and for the random rating, the uniform distribution). It returns
// false for the context rating and the two-stage variant, whose distribution depends on the
// neighbours or is not in closed form, and for a token kept by oov = "keep".
func (m *ExpMech) LogProbabilities(word string) ([]float64, bool) {
	n := m.store.Len()
	id, ok := m.store.Lookup(word)
	switch {
	case m.opts.Rating == ExpMechRatingRandom || (!ok && m.opts.OOV == ExpMechOOVUniform && m.rowsCumulative()):
		out := make([]float64, n)
		for i := range out {
			out[i] = -math.Log(float64(n))
		}
		return out, true
	case !ok || !m.rowsCumulative():
		return nil, false
	}
	rating := make([]float64, n)
	embeddingRatings(rating, m.cosines([]int{id}))
	return ExponentialLogProbabilities(rating, m.epsilon/2), true
}
