package runconfig

import (
	"dptext/mechanisms/audit"
)

// AuditConfig is the optional [audit] table of a config: it audits every mechanism that claims
// a guarantee at every ε of the grid (once per set; package audit) and reports the audited ε
// lower confidence bound per claim unit as the privacy row "audited_eps_lcb", beside the
// claimed ε. The audit's seed is the config's.
type AuditConfig struct {
	// Samples is K, outputs per input and runs per document for each half of a test.
	Samples int `toml:"samples"`
	// Alpha is the family-wise error rate of the sampled lower bounds.
	Alpha float64 `toml:"alpha"`
	// Pairs is the number of word pairs of each kind (nearest, random, far).
	Pairs int `toml:"pairs"`
}

func (c *Config) validateAudit() error {
	a := c.Audit
	if a == nil {
		return nil
	}
	d := audit.DefaultOptions()
	if a.Samples == 0 && !c.isWritten("audit", "samples") {
		a.Samples = d.Samples
	}
	if a.Alpha == 0 && !c.isWritten("audit", "alpha") {
		a.Alpha = d.Alpha
	}
	if a.Pairs == 0 && !c.isWritten("audit", "pairs") {
		a.Pairs = d.Pairs
	}
	switch {
	case a.Samples < 10 || a.Samples > audit.SamplesLimit:
		return c.ErrAt("audit", "samples", "%d: want 10 to %d", a.Samples, audit.SamplesLimit)
	case !(a.Alpha > 0 && a.Alpha < 1):
		return c.ErrAt("audit", "alpha", "%v: want a value in (0, 1)", a.Alpha)
	case a.Pairs < 1 || a.Pairs > audit.PairsLimit:
		return c.ErrAt("audit", "pairs", "%d: want 1 to %d", a.Pairs, audit.PairsLimit)
	}
	return nil
}
