package expmech

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"sort"

	"dptext/mechanisms"
)

// tokenSampler holds the per-document scratch space of ExpMech.Apply.
type tokenSampler struct {
	m       *ExpMech
	rating  []float64 // ρ_i over the vocabulary
	context []float64 // the context model's distribution
	cum     []float64 // cumulative weights
	stages  *TwoStageSampler
}

func (m *ExpMech) newSampler() *tokenSampler {
	s := &tokenSampler{m: m}
	if !m.rowsCumulative() {
		n := m.store.Len()
		s.rating, s.cum = make([]float64, n), make([]float64, n)
		if m.opts.Rating == ExpMechRatingContext {
			s.context = make([]float64, n)
		}
		s.stages = NewTwoStageSampler(m.opts.Candidates)
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
		return sampleExponential(rng, rating, m.epsilon/2, s.cum)
	}
	_, chosen := s.stages.Draw(rng, rating, m.opts.CandidateEpsilon, m.epsilon)
	return chosen
}

// TwoStageSampler is the two-stage candidate selection of the exponential-mechanism token
// samplers (expmech, erae, ae-dp): over ratings ρ(v) ∈ [0, 1] (Δ = 1), first k distinct
// candidates are drawn by k successive exponential mechanisms without replacement, each with
// ε₁/k (so ε₁-DP by sequential composition), in one pass by the Gumbel top-k trick; then one
// candidate is drawn by the exponential mechanism with ε over the candidates' ratings. The
// per-token budget is ε₁ + ε.
type TwoStageSampler struct {
	k     int
	cands shortlistHeap
	// the second stage's ratings and cumulative weights over the candidates
	rating, cum []float64
}

// NewTwoStageSampler returns the scratch space of the two-stage draw with k ≥ 1 candidates.
func NewTwoStageSampler(k int) *TwoStageSampler {
	return &TwoStageSampler{k: k, rating: make([]float64, k), cum: make([]float64, k)}
}

// Sample draws one index of ratings: k candidates with candidateEpsilon (ε₁) in all, then one of
// them with epsilon (ε). len(ratings) must be at least k.
func (s *TwoStageSampler) Sample(rng *rand.Rand, ratings []float64, candidateEpsilon, epsilon float64) int {
	_, chosen := s.Draw(rng, ratings, candidateEpsilon, epsilon)
	return chosen
}

// Draw is Sample that also returns the first stage's shortlist: the k candidate rows in the
// order drawn (decreasing Gumbel keys, so the first is one exponential-mechanism draw at scale
// ε₁/(2k) over all rows), and the row chosen among them. Sample draws through it.
func (s *TwoStageSampler) Draw(rng *rand.Rand, ratings []float64, candidateEpsilon, epsilon float64) (shortlist []int, chosen int) {
	cands := gumbelTopK(rng, ratings, candidateEpsilon/(2*float64(s.k)), s.k, &s.cands)
	shortlist = make([]int, len(cands))
	for j, c := range cands {
		s.rating[j] = ratings[c.row]
		shortlist[j] = c.row
	}
	return shortlist, cands[sampleExponential(rng, s.rating, epsilon/2, s.cum)].row
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

// sampleExponential draws an index with probability ∝ exp(scale·ratings[i]) by inverse-CDF
// sampling over cumulative weights written into cum (len(cum) ≥ len(ratings)): one pass and one
// uniform draw. It matches ExponentialProbabilities(ratings, scale).
func sampleExponential(rng *rand.Rand, ratings []float64, scale float64, cum []float64) int {
	cum = cum[:len(ratings)]
	total := mechanisms.ExponentialWeights(cum, ratings, scale)
	u := rng.Float64() * total
	return min(sort.SearchFloat64s(cum, math.Nextafter(u, math.Inf(1))), len(cum)-1)
}

// gumbelTopK returns k distinct rows drawn as by k successive draws without replacement, each
// with probability ∝ exp(scale·ratings[v]) among the rows not yet drawn: the k largest of
// scale·ratings[v] + G_v with G_v independent standard Gumbel variates (G = −ln E, E
// exponential), a known identity of the Gumbel-max trick (e.g. Vieira 2014; Durfee and Rogers
// 2019 use it for private top-k). The rows come back in decreasing order of their keys.
func gumbelTopK(rng *rand.Rand, ratings []float64, scale float64, k int, h *shortlistHeap) []shortlisted {
	*h = (*h)[:0]
	for v, r := range ratings {
		key := scale*r - math.Log(rng.ExpFloat64())
		if len(*h) < k {
			heap.Push(h, shortlisted{row: v, key: key})
		} else if key > (*h)[0].key {
			(*h)[0] = shortlisted{row: v, key: key}
			heap.Fix(h, 0)
		}
	}
	out := make([]shortlisted, len(*h))
	for j := len(out) - 1; j >= 0; j-- {
		out[j] = heap.Pop(h).(shortlisted)
	}
	return out
}

// shortlisted is a row drawn in the first stage, with its perturbed key.
type shortlisted struct {
	row int
	key float64
}

// shortlistHeap is a min-heap of first-stage rows by key (the smallest kept key on top).
type shortlistHeap []shortlisted

func (h shortlistHeap) Len() int           { return len(h) }
func (h shortlistHeap) Less(i, j int) bool { return h[i].key < h[j].key }
func (h shortlistHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *shortlistHeap) Push(x any)        { *h = append(*h, x.(shortlisted)) }
func (h *shortlistHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
