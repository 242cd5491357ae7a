package audit

import (
	"testing"

	"dptext/embeddings/embtest"
	"dptext/mechanisms"
)

// TestAuditTruncatedGumbel runs the sampled path (Clopper–Pearson) on the truncated Gumbel
// mechanism, which has no closed-form output distribution: at ε = 30 on the unit grid (the
// calibration needs ε > 14.2 there) it passes its own claim ε·d, and the same draws held to a
// claim 20 times smaller are rejected (the paper's calibration is loose: the measured loss per
// unit is far below ε).
func TestAuditTruncatedGumbel(t *testing.T) {
	store := embtest.Grid(t, 10)
	m, err := mechanisms.NewTruncatedGumbel(store, 30, mechanisms.DefaultTruncatedGumbelOptions())
	if err != nil {
		t.Fatal(err)
	}
	tg, err := NewTarget("truncated-gumbel", m, store)
	if err != nil {
		t.Fatal(err)
	}
	good := mustRun(t, tg, options(3000))
	if v := good.Violations(); len(v) > 0 {
		t.Errorf("truncated Gumbel rejected at its own claim: %s", v[0].Describe())
	}
	t.Logf("audited ε %v per unit (claim 30)", good.AuditedEpsilon())
	tg.Epsilon = 30.0 / 20
	bad := mustRun(t, tg, options(3000))
	if len(bad.Violations()) == 0 {
		t.Fatalf("truncated Gumbel passed a claim of ε/20 = 1.5 per unit; audited ε %v", bad.AuditedEpsilon())
	}
}
