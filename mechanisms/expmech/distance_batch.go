package expmech

import (
	"math/rand/v2"
	"sort"

	"dptext/embeddings"
)

// deferredDraw is a sample of the distance exponential mechanism whose uniform has been drawn
// but whose row is not computed yet: position pos of document doc draws from input row x.
// SampleCumulative consumes exactly one rng.Float64() whatever the row, so drawing u at the
// position's turn and searching the row later gives the draw Apply makes.
type deferredDraw struct {
	doc, pos, x int
	u           float64
}

// resolve computes the row of every distinct input of draws once (a window of applyWindow rows
// at a time, through the row cache) and calls set with each draw's output row: the index
// SampleCumulative would return for the same uniform.
func (e *distanceEM) resolve(draws []deferredDraw, set func(doc, pos, row int)) {
	order := make([]int, len(draws))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return draws[order[a]].x < draws[order[b]].x })
	for lo := 0; lo < len(order); {
		var ids []int
		hi := lo
		for hi < len(order) && (len(ids) < applyWindow || draws[order[hi]].x == ids[len(ids)-1]) {
			if x := draws[order[hi]].x; len(ids) == 0 || x != ids[len(ids)-1] {
				ids = append(ids, x)
			}
			hi++
		}
		rows := e.cumulativeRows(ids)
		for _, k := range order[lo:hi] {
			d := draws[k]
			c := rows[d.x]
			set(d.doc, d.pos, e.row(sort.Search(len(c), func(i int) bool { return c[i] > d.u })))
		}
		lo = hi
	}
}

// applyBatch is Apply of a distance mechanism on every document with its own generator: the
// generators are consumed position by position exactly as Apply consumes them. direct(rng, w,
// id, ok) is the mechanism's rule for one word (id, ok: its row in store); it returns the
// released word and true where the rule settles the position at once, or false for a draw from
// the exponential mechanism, whose uniform is drawn right after and whose row is searched once
// every row is ready (resolve).
func (e *distanceEM) applyBatch(store *embeddings.Store, rngs []*rand.Rand, docs [][]string, direct func(rng *rand.Rand, w string, id int, ok bool) (string, bool)) [][]string {
	out := make([][]string, len(docs))
	var draws []deferredDraw
	for d, doc := range docs {
		rng := rngs[d]
		out[d] = make([]string, len(doc))
		for i, w := range doc {
			id, ok := store.Lookup(w)
			if released, settled := direct(rng, w, id, ok); settled {
				out[d][i] = released
				continue
			}
			draws = append(draws, deferredDraw{doc: d, pos: i, x: id, u: rng.Float64()})
		}
	}
	e.resolve(draws, func(d, i, row int) { out[d][i] = store.Word(row) })
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
