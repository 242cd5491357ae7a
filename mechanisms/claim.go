package mechanisms

// A Claimer states the ε per claim unit its guarantee is made of, where that differs from the
// ε it was built with: the two-stage samplers claim ε₁ + ε per word (both stages compose).
// The audit tests this value, so that the claim audited is the claim printed.
type Claimer interface {
	ClaimEpsilon() float64
}

// ClaimEpsilon is the per-word budget of the guarantee: ε, or ε₁ + ε for two stages.
func (m *ExpMech) ClaimEpsilon() float64 { return m.tokenBudget() }
