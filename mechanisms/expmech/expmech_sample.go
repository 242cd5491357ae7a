package expmech

import (
	"math/rand/v2"

	"dptext/mechanisms"
	"dptext/mechanisms/internal/twostage"
)

// tokenSampler holds the per-document scratch space of ExpMech.Apply.
type tokenSampler struct {
	m       *ExpMech
	rating  []float64 // ρ_i over the vocabulary
	context []float64 // the context model's distribution
	cum     []float64 // cumulative weights
	stages  *twostage.Sampler
}

func (m *ExpMech) newSampler() *tokenSampler {
	s := &tokenSampler{m: m}
	if !m.rowsCumulative() {
		n := m.store.Len()
		s.rating, s.cum = make([]float64, n), make([]float64, n)
		if m.opts.Rating == ExpMechRatingContext {
			s.context = make([]float64, n)
		}
		s.stages = twostage.NewSampler(m.opts.Candidates)
	}
	return s
}

// sample draws the vocabulary row replacing doc[i]. row is the token's cached row (see
// ExpMech.rows); inVocab says whether doc[i] has a vector.
func (s *tokenSampler) sample(rng *rand.Rand, doc []string, i int, row []float64, inVocab bool) int {
	m := s.m
	if m.rowsCumulative() {
		if !inVocab {
			return rng.IntN(m.store.Len()) // constant rating: the uniform distribution
		}
		return mechanisms.SampleCumulative(rng, row)
	}
	rating := s.ratings(doc, i, row, inVocab)
	if m.opts.Candidates == 0 {
		return twostage.SampleExponential(rng, rating, m.epsilon/2, s.cum)
	}
	_, chosen := s.stages.Draw(rng, rating, m.opts.CandidateEpsilon, m.epsilon)
	return chosen
}

// ratings fills s.rating with ρ_i(v) for every vocabulary row v.
func (s *tokenSampler) ratings(doc []string, i int, row []float64, inVocab bool) []float64 {
	m := s.m
	if !inVocab || row == nil {
		row = nil // no vector: every candidate equally similar, rating 1/2
	}
	if m.opts.Rating == ExpMechRatingEmbedding {
		if row == nil {
			for v := range s.rating {
				s.rating[v] = 0.5
			}
			return s.rating
		}
		return row
	}
	m.opts.Context.Distribution(s.context, doc, i)
	peak := 0.0
	for _, p := range s.context {
		peak = max(peak, p)
	}
	w := m.opts.ContextWeight
	if peak > 0 {
		w /= peak // P/max P, folded into the weight
	}
	for v, p := range s.context {
		e := 0.5
		if row != nil {
			e = row[v]
		}
		s.rating[v] = min(w*p+(1-m.opts.ContextWeight)*e, 1)
	}
	return s.rating
}
