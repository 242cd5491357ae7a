package syntf

import (
	"math/rand/v2"

	"dptext/mechanisms/internal/rowcache"
)

// batchWindow is how many distinct source words' rows ApplyBatch computes at a time (each
// 8 bytes × vocabulary, as a cumulative row, plus 4 as a rating row).
const batchWindow = 128

// ApplyBatch is Apply on every document with its own generator (mechanisms.BatchMechanism):
// each generator is consumed as Apply consumes it — the n source words from θ, then one
// uniform per substitute, drawn at its turn — and each distinct source word's cumulative row is
// computed once for the whole batch, batchWindow rows at a time (rowcache.Resolve), instead of
// once per document its cache no longer holds.
func (m *SynTF) ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string {
	out := make([][]string, len(docs))
	var draws []rowcache.Draw
	for d, doc := range docs {
		rng := rngs[d]
		sources := m.sources(rng, doc)
		out[d] = make([]string, len(sources))
		for i, v := range sources {
			draws = append(draws, rowcache.Draw{Doc: d, Pos: i, X: v, U: rng.Float64()})
		}
	}
	rowcache.Resolve(draws, batchWindow, m.cumulativeRows, func(d, i, index int) { out[d][i] = m.store.Word(index) })
	return out
}
