package expmech

import (
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/mechanisms/internal/rowcache"
)

// applyBatch is Apply of a distance mechanism on every document with its own generator: the
// generators are consumed position by position exactly as Apply consumes them. direct(rng, w,
// id, ok) is the mechanism's rule for one word (id, ok: its row in store); it returns the
// released word and true where the rule settles the position at once, or false for a draw from
// the exponential mechanism, whose uniform is drawn right after and whose row is searched once
// every row is ready (rowcache.Resolve, applyWindow rows at a time).
func (e *distanceEM) applyBatch(store *embeddings.Store, rngs []*rand.Rand, docs [][]string, direct func(rng *rand.Rand, w string, id int, ok bool) (string, bool)) [][]string {
	out := make([][]string, len(docs))
	var draws []rowcache.Draw
	for d, doc := range docs {
		rng := rngs[d]
		out[d] = make([]string, len(doc))
		for i, w := range doc {
			id, ok := store.Lookup(w)
			if released, settled := direct(rng, w, id, ok); settled {
				out[d][i] = released
				continue
			}
			draws = append(draws, rowcache.Draw{Doc: d, Pos: i, X: id, U: rng.Float64()})
		}
	}
	rowcache.Resolve(draws, applyWindow, e.cumulativeRows, func(d, i, index int) { out[d][i] = store.Word(e.row(index)) })
	return out
}

// ApplyBatch is Apply on every document with its own generator (BatchMechanism), through
// distanceEM.applyBatch with SanText's rule: unknown words kept or replaced uniformly, a
// non-sensitive word kept with probability 1 − p, every other word drawn.
func (s *SanText) ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string {
	return s.em.applyBatch(s.store, rngs, docs, func(rng *rand.Rand, w string, id int, ok bool) (string, bool) {
		switch {
		case !ok && s.opts.OOV == SampleOOVKeep:
			return w, true
		case !ok:
			return s.store.Word(s.em.row(rng.IntN(s.em.size()))), true
		case id < s.sensitive && rng.Float64() >= s.opts.P:
			return w, true
		}
		return "", false
	})
}

// ApplyBatch is Apply on every document with its own generator (BatchMechanism), through
// distanceEM.applyBatch with TEM's rule: a known word drawn, an unknown one kept or replaced
// uniformly.
func (m *TEM) ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string {
	return m.em.applyBatch(m.store, rngs, docs, func(rng *rand.Rand, w string, _ int, ok bool) (string, bool) {
		switch {
		case ok:
			return "", false
		case m.opts.OOV == SampleOOVKeep:
			return w, true
		}
		return m.store.Word(rng.IntN(m.store.Len())), true
	})
}
