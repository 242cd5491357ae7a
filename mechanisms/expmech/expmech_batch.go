package expmech

import (
	"math/rand/v2"

	"dptext/mechanisms/internal/rowcache"
)

// ApplyBatch is Apply on every document with its own generator (mechanisms.BatchMechanism).
// With the embedding rating and one stage a token's distribution depends on its word only, so
// every generator is consumed position by position as Apply consumes it (an unknown word kept
// or replaced uniformly at once, a known word's uniform drawn at its turn) and each distinct
// word's cumulative row is computed once for the whole batch, applyWindow rows at a time
// (rowcache.Resolve), instead of once per document its cache no longer holds. The other
// ratings and the two-stage variant run Apply on each document.
func (m *ExpMech) ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string {
	out := make([][]string, len(docs))
	if !m.rowsCumulative() {
		for d, doc := range docs {
			out[d] = m.Apply(rngs[d], doc)
		}
		return out
	}
	var draws []rowcache.Draw
	for d, doc := range docs {
		rng := rngs[d]
		out[d] = make([]string, len(doc))
		for i, w := range doc {
			id, ok := m.store.Lookup(w)
			switch {
			case !ok && m.opts.OOV == ExpMechOOVKeep:
				out[d][i] = w
			case !ok:
				out[d][i] = m.store.Word(rng.IntN(m.store.Len())) // constant rating: uniform
			default:
				draws = append(draws, rowcache.Draw{Doc: d, Pos: i, X: id, U: rng.Float64()})
			}
		}
	}
	rowcache.Resolve(draws, applyWindow, m.idRows, func(d, i, index int) { out[d][i] = m.store.Word(index) })
	return out
}
