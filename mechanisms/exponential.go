package mechanisms

import (
	"math"
	"math/rand/v2"
	"sort"

	"dptext/internal/linalg"
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

// ExponentialLogProbabilities returns the natural logarithms of the exponential mechanism's
// probabilities over ratings at the given scale: scale·(u_i − max u) − ln Σ_j exp(scale·(u_j −
// max u)), the normaliser being the one the samplers compute (ExponentialWeights). Unlike the
// logarithm of ExponentialProbabilities it stays finite where a probability underflows.
func ExponentialLogProbabilities(ratings []float64, scale float64) []float64 {
	w := make([]float64, len(ratings))
	lnTotal := math.Log(ExponentialWeights(w, ratings, scale))
	maxU := math.Inf(-1)
	for _, u := range ratings {
		if u > maxU {
			maxU = u
		}
	}
	for i, u := range ratings {
		w[i] = scale*(u-maxU) - lnTotal
	}
	return w
}

// ExponentialCumulative returns the normalised cumulative weights of the exponential mechanism
// over ratings at the given scale; the last entry is exactly 1. Cache it per rating row and draw
// with SampleCumulative: one draw then costs a binary search.
func ExponentialCumulative(ratings []float64, scale float64) []float64 {
	cum := make([]float64, len(ratings))
	total := ExponentialWeights(cum, ratings, scale)
	linalg.Divide(cum, total)
	cum[len(cum)-1] = 1
	return cum
}

// ExponentialWeights sets cum (len(cum) ≥ len(ratings)) to the running sums of
// exp(scale·(u_i − max u)) in order and returns the last, the normaliser.
func ExponentialWeights(cum, ratings []float64, scale float64) (total float64) {
	maxU := math.Inf(-1)
	for _, u := range ratings {
		if u > maxU { // skips NaN, unlike max(), but a NaN rating makes every weight NaN anyway
			maxU = u
		}
	}
	cum = cum[:len(ratings)]
	linalg.ExpShifted(cum, ratings, maxU, scale)
	for i, w := range cum {
		total += w
		cum[i] = total
	}
	return total
}

// SampleCumulative draws an index from normalised cumulative weights (as returned by
// ExponentialCumulative) by inverse-CDF sampling with one uniform draw from rng.
func SampleCumulative(rng *rand.Rand, cum []float64) int {
	u := rng.Float64()
	return sort.Search(len(cum), func(i int) bool { return cum[i] > u })
}
