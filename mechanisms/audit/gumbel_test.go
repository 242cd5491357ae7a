package audit

import (
	"math"
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms/expmech"
)

// TestAuditTruncatedGumbel: the truncated Gumbel mechanism states no finite bound between
// different words, and the audit reports every pair as unprotected (∞) with that reason instead
// of passing a finite claim. The reason is checked on the mechanism itself: x's farthest word is
// never released for x (its candidates are at most its |V|−1 nearest words) while the farthest
// word releases itself — an infinite log-ratio, which the old claim ε·d (30·12.7 here) would
// have had to cover.
func TestAuditTruncatedGumbel(t *testing.T) {
	store := fixtures.Grid(t, 10)
	m, err := expmech.NewTruncatedGumbel(store, 30, expmech.DefaultTruncatedGumbelOptions())
	if err != nil {
		t.Fatal(err)
	}
	tg, err := NewTarget("truncated-gumbel", m, store)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, tg, options(300))
	if !math.IsInf(r.Claim, 1) || len(r.Findings) != 0 || r.Measured() || len(r.Violations()) != 0 {
		t.Errorf("claim %v, %d findings, measured %v: want the claim ∞, nothing audited and no failure", r.Claim, len(r.Findings), r.Measured())
	}
	if len(r.Skipped) != 12 {
		t.Errorf("%d pairs skipped, want 9 word pairs and 3 games", len(r.Skipped))
	}
	for _, f := range r.Skipped {
		if !strings.Contains(f.Reason, "no bound between different words") {
			t.Errorf("%s %s: reason %q", f.Level, f.Kind, f.Reason)
		}
	}
	var out strings.Builder
	r.Write(&out, "truncated-gumbel", 30, store.Len(), 0)
	if first, _, _ := strings.Cut(out.String(), "\n"); !strings.Contains(first, "no bound between different words") || !strings.Contains(first, "nothing to audit") || strings.Contains(first, "30 per") {
		t.Errorf("first line %q: want the claim ∞ stated first, and no finite claim named", first)
	}
	// A claim given to the audit is held per differing word, and fails: x's farthest word is
	// never released for x but releases itself.
	o := options(3000)
	o.Claim, o.ClaimSet = 2, true
	given := mustRun(t, tg, o)
	if len(given.Violations()) == 0 || given.Claim != 2 || !strings.Contains(given.ClaimNote, "per differing word") {
		t.Errorf("--claim 2: claim %v (%s), %d violations: want the claim of 2 per word audited and refuted", given.Claim, given.ClaimNote, len(given.Violations()))
	}
	x := 0
	far := extremeNeighbour(store.Vector(x), x, store.Len(), store.Vector, true)
	rng := rngs.New(1, "audit/test/gumbel")
	seen := 0
	for _, w := range m.Apply(rng, repeatWord(store.Word(x), 20000)) {
		if w == store.Word(far) {
			t.Fatalf("%s released its farthest word %s", store.Word(x), w)
		}
	}
	for _, w := range m.Apply(rng, repeatWord(store.Word(far), 2000)) {
		if w == store.Word(far) {
			seen++
		}
	}
	if seen == 0 {
		t.Errorf("%s never released itself in 2000 draws", store.Word(far))
	}
}
