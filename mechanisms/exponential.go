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
	cum = cum[:len(ratings)]
	linalg.ExpShifted(cum, ratings, maxRating(ratings), scale)
	for i, w := range cum {
		total += w
		cum[i] = total
	}
	return total
}

// maxRating returns the largest rating, skipping NaN (−Inf when there is none), four
// comparisons at a time. Where the largest value is a zero of both signs either may be
// returned: u − (±0) differs only in the sign of a zero result, and exp(±0) = 1, so the
// weights do not depend on which.
func maxRating(ratings []float64) float64 {
	m0, m1, m2, m3 := math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)
	i := 0
	for ; i+4 <= len(ratings); i += 4 {
		r := ratings[i : i+4 : i+4]
		if r[0] > m0 { // skips NaN, unlike max(), but a NaN rating makes every weight NaN anyway
			m0 = r[0]
		}
		if r[1] > m1 {
			m1 = r[1]
		}
		if r[2] > m2 {
			m2 = r[2]
		}
		if r[3] > m3 {
			m3 = r[3]
		}
	}
	for _, u := range ratings[i:] {
		if u > m0 {
			m0 = u
		}
	}
	for _, m := range [3]float64{m1, m2, m3} {
		if m > m0 {
			m0 = m
		}
	}
	return m0
}

// ExponentialCumulativeInPlace replaces every row of rows (ratings) by its normalised
// cumulative weights, bit for bit ExponentialCumulative(row, scale). The running sums are
// sequential within a row; those of four rows of equal length run side by side, so that their
// additions' latencies overlap.
func ExponentialCumulativeInPlace(rows [][]float64, scale float64) {
	totals := make([]float64, len(rows))
	for _, r := range rows {
		linalg.ExpShifted(r, r, maxRating(r), scale)
	}
	i := 0
	for ; i+4 <= len(rows); i += 4 {
		a := rows[i]
		b, c, d := rows[i+1], rows[i+2], rows[i+3]
		if len(b) != len(a) || len(c) != len(a) || len(d) != len(a) {
			break
		}
		b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
		var ta, tb, tc, td float64
		for j := range a {
			ta += a[j]
			a[j] = ta
			tb += b[j]
			b[j] = tb
			tc += c[j]
			c[j] = tc
			td += d[j]
			d[j] = td
		}
		totals[i], totals[i+1], totals[i+2], totals[i+3] = ta, tb, tc, td
	}
	for ; i < len(rows); i++ {
		t := 0.0
		for j, w := range rows[i] {
			t += w
			rows[i][j] = t
		}
		totals[i] = t
	}
	for i, r := range rows {
		if len(r) == 0 {
			continue
		}
		linalg.Divide(r, totals[i])
		r[len(r)-1] = 1
	}
}

// SampleCumulative draws an index from normalised cumulative weights (as returned by
// ExponentialCumulative) by inverse-CDF sampling with one uniform draw from rng.
func SampleCumulative(rng *rand.Rand, cum []float64) int {
	u := rng.Float64()
	return sort.Search(len(cum), func(i int) bool { return cum[i] > u })
}
