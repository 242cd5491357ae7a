package mechanisms

import (
	"fmt"
	"math"
)

// EpsilonRange is the closed interval of privacy parameters ε a mechanism can represent
// faithfully in floating point. Constructors reject ε outside it, and so do config checks and
// command-line flags, so that an absurd ε gets an error instead of a wrong output.
type EpsilonRange struct {
	Min, Max float64
}

// Contains reports whether Min ≤ ε ≤ Max (false for NaN).
func (r EpsilonRange) Contains(epsilon float64) bool { return epsilon >= r.Min && epsilon <= r.Max }

// Check returns an error naming the valid range when ε is outside it. It is the one check of
// ε: constructors, config validation and command-line flags all call it.
func (r EpsilonRange) Check(epsilon float64) error {
	if r.Contains(epsilon) {
		return nil
	}
	if math.IsNaN(epsilon) || math.IsInf(epsilon, 0) || epsilon <= 0 {
		return fmt.Errorf("epsilon = %g: every ε must be a finite number > 0; want a number in %s", epsilon, r)
	}
	return fmt.Errorf("epsilon = %g: want a number in %s (the ε the mechanism can represent)", epsilon, r)
}

// String is "[Min, Max]".
func (r EpsilonRange) String() string { return fmt.Sprintf("[%g, %g]", r.Min, r.Max) }

// EMDEpsilonRange is the ε the EMD mechanism accepts. Below 1e-3 the noise radius, Gamma(n, 1/ε)
// with mean n/ε, is at least a thousand times the dimension: many times the diameter of any
// embedding in use, so the output no longer depends on the input and smaller ε buys nothing;
// near 1e-16 the radius (about 1e18) drowns every word difference in float64 rounding, so every
// word decoded to the first vocabulary row, and near 1e-38 the noise overflowed. Above 1e12 the
// noise is below float32 resolution of any vector, so every word is released unchanged: the
// guarantee would claim a meaning the arithmetic cannot carry.
var EMDEpsilonRange = EpsilonRange{Min: 1e-3, Max: 1e12}

// ExponentialEpsilonRange is the ε the exponential-mechanism samplers (SynTF, expmech) accept.
// Their weights exp(ε·(ρ − max ρ)/(2Δ)) are computed relative to the best rating, so they never
// overflow; below 1e-12 every weight is within 1e-12 of 1 (the distribution is uniform to
// float64 resolution of the sampler's cumulative sums) and above 1e12 every weight but the
// best underflows to 0 for rating gaps above 1e-9, so the sampler is deterministic.
var ExponentialEpsilonRange = EpsilonRange{Min: 1e-12, Max: 1e12}

// maxNoisyNorm bounds the norm of a noisy EMD vector: the decoder squares ‖z‖ + max‖v‖ in
// float32 (max about 3.4e38), which stays finite and far from overflow below 2^40.
const maxNoisyNorm = 1 << 40

// checkNoisy returns an error unless every value of the noisy vector z is finite and ‖z‖ is at
// most maxNoisyNorm, so that decoding it is meaningful (a non-finite query would otherwise
// decode silently to row 0, or index out of range).
func checkNoisy(z []float64) error {
	sq := 0.0
	for _, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("non-finite noisy vector (value %v): the noise is not representable", v)
		}
		sq += v * v
	}
	if !(math.Sqrt(sq) <= maxNoisyNorm) {
		return fmt.Errorf("noisy vector of norm %g beyond %g: the noise is not representable", math.Sqrt(sq), float64(maxNoisyNorm))
	}
	return nil
}
