package audit

import (
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/mechanisms/expmech"
	"dptext/rngs"
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
	for _, f := range r.Findings { // only the unknown words, both replaced uniformly: bound 0
		if f.Kind != "one OOV word changed" || f.Claim != 0 || f.Violates() {
			t.Errorf("finding %s: want every pair of different known words skipped as unprotected", f.Describe())
		}
	}
	if r.Measured() { // an audited ε of 0 here would read as a measurement of a perfect mechanism
		t.Errorf("audit of a mechanism with no finite pair bound says it measured ε = %v (ceiling %v)", r.AuditedEpsilon(), r.AuditedCeiling())
	}
	if len(r.Skipped) != 11 {
		t.Errorf("%d pairs skipped, want 9 word pairs and 2 games", len(r.Skipped))
	}
	for _, f := range r.Skipped {
		if !strings.Contains(f.Reason, "unprotected (∞)") || !strings.Contains(f.Reason, "farthest word") && !strings.Contains(f.Reason, "out-of-vocabulary") {
			t.Errorf("%s %s: reason %q", f.Level, f.Kind, f.Reason)
		}
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
