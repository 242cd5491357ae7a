package twostage

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"sort"

	"dptext/mechanisms"
)

// Sampler is the two-stage candidate selection of the exponential-mechanism token
// samplers (expmech, erae, ae-dp): over ratings ρ(v) ∈ [0, 1] (Δ = 1), first k distinct
// candidates are drawn by k successive exponential mechanisms without replacement, each with
// ε₁/k (so ε₁-DP by sequential composition), in one pass by the Gumbel top-k trick; then one
// candidate is drawn by the exponential mechanism with ε over the candidates' ratings. The
// per-token budget is ε₁ + ε.
type Sampler struct {
	k     int
	cands shortlistHeap
	// the second stage's ratings and cumulative weights over the candidates
	rating, cum []float64
}

// NewSampler returns the scratch space of the two-stage draw with k ≥ 1 candidates.
func NewSampler(k int) *Sampler {
	return &Sampler{k: k, rating: make([]float64, k), cum: make([]float64, k)}
}

// Sample draws one index of ratings: k candidates with candidateEpsilon (ε₁) in all, then one of
// them with epsilon (ε). len(ratings) must be at least k.
func (s *Sampler) Sample(rng *rand.Rand, ratings []float64, candidateEpsilon, epsilon float64) int {
	_, chosen := s.Draw(rng, ratings, candidateEpsilon, epsilon)
	return chosen
}

// Draw is Sample that also returns the first stage's shortlist: the k candidate rows in the
// order drawn (decreasing Gumbel keys, so the first is one exponential-mechanism draw at scale
// ε₁/(2k) over all rows), and the row chosen among them. Sample draws through it.
func (s *Sampler) Draw(rng *rand.Rand, ratings []float64, candidateEpsilon, epsilon float64) (shortlist []int, chosen int) {
	cands := gumbelTopK(rng, ratings, candidateEpsilon/(2*float64(s.k)), s.k, &s.cands)
	shortlist = make([]int, len(cands))
	for j, c := range cands {
		s.rating[j] = ratings[c.row]
		shortlist[j] = c.row
	}
	return shortlist, cands[SampleExponential(rng, s.rating, epsilon/2, s.cum)].row
}

// SampleExponential draws an index with probability ∝ exp(scale·ratings[i]) by inverse-CDF
// sampling over cumulative weights written into cum (len(cum) ≥ len(ratings)): one pass and one
// uniform draw. It matches ExponentialProbabilities(ratings, scale).
func SampleExponential(rng *rand.Rand, ratings []float64, scale float64, cum []float64) int {
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
