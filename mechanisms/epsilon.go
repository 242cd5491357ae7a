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

// ExponentialEpsilonRange is the ε the exponential-mechanism samplers (SynTF, expmech) accept.
// Their weights exp(ε·(ρ − max ρ)/(2Δ)) are computed relative to the best rating, so they never
// overflow; below 1e-12 every weight is within 1e-12 of 1 (the distribution is uniform to
// float64 resolution of the sampler's cumulative sums) and above 1e12 every weight but the
// best underflows to 0 for rating gaps above 1e-9, so the sampler is deterministic.
var ExponentialEpsilonRange = EpsilonRange{Min: 1e-12, Max: 1e12}
