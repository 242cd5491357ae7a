package mechanisms

import (
	"math/rand/v2"
	"sort"
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

// ApplyBatch is Apply on every document with its own generator (BatchMechanism): the
// generators are consumed position by position exactly as Apply consumes them, with the
// exponential mechanism's uniform drawn and its row searched once every row is ready.
func (s *SanText) ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string {
	out := make([][]string, len(docs))
	var draws []deferredDraw
	for d, doc := range docs {
		rng := rngs[d]
		out[d] = make([]string, len(doc))
		for i, w := range doc {
			id, ok := s.store.Lookup(w)
			switch {
			case !ok && s.opts.OOV == SampleOOVKeep:
				out[d][i] = w
			case !ok:
				out[d][i] = s.store.Word(s.em.row(rng.IntN(s.em.size())))
			case id < s.sensitive && rng.Float64() >= s.opts.P:
				out[d][i] = w
			default:
				draws = append(draws, deferredDraw{doc: d, pos: i, x: id, u: rng.Float64()})
			}
		}
	}
	s.em.resolve(draws, func(d, i, row int) { out[d][i] = s.store.Word(row) })
	return out
}

// ApplyBatch is Apply on every document with its own generator (BatchMechanism), as
// SanText.ApplyBatch.
func (m *TEM) ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string {
	out := make([][]string, len(docs))
	var draws []deferredDraw
	for d, doc := range docs {
		rng := rngs[d]
		out[d] = make([]string, len(doc))
		for i, w := range doc {
			id, ok := m.store.Lookup(w)
			switch {
			case ok:
				draws = append(draws, deferredDraw{doc: d, pos: i, x: id, u: rng.Float64()})
			case m.opts.OOV == SampleOOVKeep:
				out[d][i] = w
			default:
				out[d][i] = m.store.Word(rng.IntN(m.store.Len()))
			}
		}
	}
	m.em.resolve(draws, func(d, i, row int) { out[d][i] = m.store.Word(row) })
	return out
}
