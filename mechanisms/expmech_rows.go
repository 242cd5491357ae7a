package mechanisms

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
	n, dim := m.store.Len(), m.store.Dim()
	query := make([]float32, len(missing)*dim)
	for q, id := range missing {
		copy(query[q*dim:], m.unit[id*dim:(id+1)*dim])
	}
	cos := make([]float32, len(missing)*n)
	mulABt(cos, query, len(missing), m.unit, n, dim)
	var scratch []float64 // the rating row, when only its cumulative weights are kept
	if m.rowsCumulative() {
		scratch = make([]float64, n)
	}
	for q, id := range missing {
		rating := scratch
		if rating == nil {
			rating = make([]float64, n)
		}
		for v, c := range cos[q*n : (q+1)*n] {
			rating[v] = min(max((float64(c)+1)/2, 0), 1) // clip float rounding of |cos| ≤ 1
		}
		row := rating
		if m.rowsCumulative() {
			row = ExponentialCumulative(rating, m.epsilon/2)
		}
		rows[id] = row
		m.cache.put(id, row)
	}
	return rows
}
