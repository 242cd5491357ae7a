package mechanisms

import (
	"math"
	"math/rand/v2"
	"sort"
)

// The exponential mechanism (McSherry and Talwar 2007) picks item i with probability
//
//	P(i) = exp(scale·u_i) / Σ_j exp(scale·u_j),   scale = ε / (2Δ),
//
// for ratings u with sensitivity Δ. The helpers below are shared by SynTF and the token
// samplers; they work in log space relative to the maximum so that large scales do not
// overflow.

// ExponentialProbabilities returns the exact probabilities of the exponential mechanism over
// ratings at the given scale (ε/(2Δ)).
func ExponentialProbabilities(ratings []float64, scale float64) []float64 {
	p := ExponentialCumulative(ratings, scale)
	prev := 0.0
	for i, c := range p {
		p[i], prev = c-prev, c
	}
	return p
}

// ExponentialCumulative returns the normalised cumulative weights of the exponential mechanism
// over ratings at the given scale; the last entry is exactly 1. Cache it per rating row and draw
// with SampleCumulative: one draw then costs a binary search.
func ExponentialCumulative(ratings []float64, scale float64) []float64 {
	maxU := math.Inf(-1)
	for _, u := range ratings {
		maxU = max(maxU, u)
	}
	cum := make([]float64, len(ratings))
	total := 0.0
	for i, u := range ratings {
		total += math.Exp(scale * (u - maxU))
		cum[i] = total
	}
	for i := range cum {
		cum[i] /= total
	}
	cum[len(cum)-1] = 1
	return cum
}

// SampleCumulative draws an index from normalised cumulative weights (as returned by
// ExponentialCumulative) by inverse-CDF sampling with one uniform draw from rng.
func SampleCumulative(rng *rand.Rand, cum []float64) int {
	u := rng.Float64()
	return sort.Search(len(cum), func(i int) bool { return cum[i] > u })
}
