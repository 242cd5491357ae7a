package mechanisms

// ClaimEpsilon is the per-word budget of the guarantee: ε, or ε₁ + ε for two stages.
func (m *ExpMech) ClaimEpsilon() float64 { return m.tokenBudget() }
