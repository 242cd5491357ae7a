package expmech

import (
	"math"
	"math/rand/v2"

	"dptext/internal/linalg"
	"dptext/mechanisms"
)

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
	return m.idRows(ids)
}

// idRows returns the row (see rows) of every vocabulary row of ids, from the cache or computed
// in one matrix product.
func (m *ExpMech) idRows(ids []int) map[int][]float64 {
	rows, missing := m.cache.Lookup(ids)
	if len(missing) == 0 {
		return rows
	}
	n := m.store.Len()
	cos := m.cosines(missing)
	ratings := make([][]float64, len(missing))
	for q := range missing {
		ratings[q] = make([]float64, n)
		embeddingRatings(ratings[q], cos[q*n:(q+1)*n])
	}
	if m.rowsCumulative() { // only the cumulative weights are kept
		mechanisms.ExponentialCumulativeInPlace(ratings, m.epsilon/2)
	}
	for q, id := range missing {
		rows[id] = ratings[q]
		m.cache.Put(id, ratings[q])
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
	linalg.MulAPanelsT(cos, query, len(ids), m.panels)
	return cos
}

// embeddingRatings sets rating to the embedding rating (cos + 1)/2 of each cosine.
func embeddingRatings(rating []float64, cos []float32) {
	for v, c := range cos {
		rating[v] = min(max((float64(c)+1)/2, 0), 1) // clip float rounding of |cos| ≤ 1
	}
}

// LogProbabilities returns the natural logarithms of the exact output distribution of a
// one-word document whose word is word (for the embedding and random ratings, of every
// position whose original token is word): P(v) ∝ exp(ε·ρ(word, v)/2). For the context rating the
// position has no neighbours, so the context model's distribution is the one it gives an empty
// neighbourhood. It returns false for the two-stage variant, whose distribution is not in closed
// form, and for a token kept by oov = "keep".
func (m *ExpMech) LogProbabilities(word string) ([]float64, bool) {
	n := m.store.Len()
	_, ok := m.store.Lookup(word)
	switch {
	case m.opts.Rating == ExpMechRatingRandom:
		out := make([]float64, n)
		for i := range out {
			out[i] = -math.Log(float64(n))
		}
		return out, true
	case m.opts.Candidates > 0 || (!ok && m.opts.OOV == ExpMechOOVKeep):
		return nil, false
	}
	return mechanisms.ExponentialLogProbabilities(m.wordRatings(word), m.epsilon/2), true
}

// wordRatings are the ratings ρ(word, v) over the vocabulary of the one-word document [word]
// (word known, or replaced under oov = "uniform").
func (m *ExpMech) wordRatings(word string) []float64 {
	n := m.store.Len()
	id, ok := m.store.Lookup(word)
	var row []float64
	if ok && !(m.opts.Rating == ExpMechRatingContext && m.opts.ContextWeight == 1) {
		row = make([]float64, n)
		embeddingRatings(row, m.cosines([]int{id}))
	}
	s := m.newSampler()
	if s.rating == nil { // the sampler caches cumulative rows; ratings need their own buffer
		s.rating = make([]float64, n)
	}
	return s.ratings([]string{word}, 0, row, ok)
}

// StageRatings are, for the two-stage variant, the ratings ρ(word, v) ∈ [0, 1] over the
// vocabulary rows that both stages of the one-word document [word] draw with
// (mechanisms.TwoStage); false for one stage, the random rating, and a token kept by
// oov = "keep".
func (m *ExpMech) StageRatings(word string) ([]float64, bool) {
	_, ok := m.store.Lookup(word)
	if m.opts.Candidates == 0 || m.opts.Rating == ExpMechRatingRandom || (!ok && m.opts.OOV == ExpMechOOVKeep) {
		return nil, false
	}
	return m.wordRatings(word), true
}

// StageBudgets are k, ε₁ and ε of the two-stage variant (k = 0 for one stage).
func (m *ExpMech) StageBudgets() (k int, candidateEpsilon, epsilon float64) {
	return m.opts.Candidates, m.opts.CandidateEpsilon, m.epsilon
}

// DrawStages draws the one-word document [word] from rng exactly as Apply does (the same
// draws, so the same output for a generator in the same state) and returns the first stage's
// shortlist besides the released row (mechanisms.TwoStage); false when StageRatings is.
func (m *ExpMech) DrawStages(rng *rand.Rand, word string) (shortlist []int, released int, ok bool) {
	if _, ok := m.StageRatings(word); !ok {
		return nil, 0, false
	}
	doc := []string{word}
	id, known := m.store.Lookup(word)
	var row []float64
	if known {
		row = m.rows(doc)[id]
	}
	s := m.newSampler()
	shortlist, released = s.stages.Draw(rng, s.ratings(doc, 0, row, known), m.opts.CandidateEpsilon, m.epsilon)
	return shortlist, released, true
}

// IndependentPositions says every position's output distribution depends on its own token only
// (embedding and random ratings), so that a document's probability is the product over
// positions of LogProbabilities; the context rating also reads the neighbours.
func (m *ExpMech) IndependentPositions() bool { return m.opts.Rating != ExpMechRatingContext }

// PositionWise is IndependentPositions: with embedding and random ratings every position is
// released from its own token, with draws of its own, in place (mechanisms.PositionWise).
func (m *ExpMech) PositionWise() bool { return m.IndependentPositions() }
