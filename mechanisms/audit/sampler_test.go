package audit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/mechanisms/expmech"
	"dptext/mechanisms/syntf"
)

// TestSamplerAgainstDistribution: the exponential-mechanism sampler passes the χ² test against
// its computed distribution for every exactly audited input; a sampler-only bug (one draw in
// ten shifted to the next vocabulary row, as an off-by-one in the cumulative weights would)
// and a distribution-only bug (the computed distribution at ε/2, which still meets the claim,
// while the sampler runs at ε) are rejected. Each χ² test runs at the audit's Bonferroni level,
// so the correct sampler fails with probability at most α = 0.01 over the audit.
func TestSamplerAgainstDistribution(t *testing.T) {
	store := fixtures.Grid(t, 6)
	const eps = 40
	m, err := expmech.NewExpMech(store, eps, expmech.DefaultExpMechOptions())
	if err != nil {
		t.Fatal(err)
	}
	half, err := expmech.NewExpMech(store, eps/2, expmech.DefaultExpMechOptions())
	if err != nil {
		t.Fatal(err)
	}
	samplerFailures := func(tg *Target) (tested, failed int) {
		for _, f := range mustRun(t, tg, options(3000)).Findings {
			if f.Level == "sampler" {
				tested++
				if f.Violates() {
					failed++
				}
			}
		}
		return tested, failed
	}
	good := target(t, "expmech", m, store)
	if n, bad := samplerFailures(good); n < 9 || bad > 0 {
		t.Errorf("correct sampler: %d of %d inputs rejected, want ≥ 9 tested and none rejected", bad, n)
	}
	shifted := target(t, "expmech", m, store)
	sample := shifted.SampleWord
	shifted.SampleWord = func(rng *rand.Rand, x string, k int) []string {
		out := sample(rng, x, k)
		for i, w := range out {
			if rng.IntN(10) == 0 {
				r, _ := store.Lookup(w)
				out[i] = store.Word((r + 1) % store.Len())
			}
		}
		return out
	}
	if n, bad := samplerFailures(shifted); bad == 0 {
		t.Errorf("sampler-only bug passed on all %d inputs", n)
	}
	wrongDist := target(t, "expmech", m, store)
	wrongDist.LogProbabilities = half.LogProbabilities
	r := mustRun(t, wrongDist, options(3000))
	failed := 0
	for _, f := range r.Findings {
		if f.Level == "sampler" && f.Violates() {
			failed++
		}
		if f.Level == "word" && f.Violates() {
			t.Errorf("the distribution at ε/2 exceeds the claim ε: %s", f.Describe())
		}
	}
	if failed == 0 {
		t.Error("distribution-only bug (computed at ε/2, sampled at ε) passed")
	}
}

// TestCusTextExhaustive: CusText's claim is audited over every pair within its output sets
// (exactly, all 9 sets × 6 pairs of the 6×6 grid with K = 4), cross-set pairs are reported as
// unprotected with their reason, and the same mechanism held to half its ε fails exactly.
func TestCusTextExhaustive(t *testing.T) {
	store := fixtures.Grid(t, 6)
	o := expmech.DefaultCusTextOptions()
	o.K = 4
	m, err := expmech.NewCusText(store, 4, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg := target(t, "custext", m, store)
	r := mustRun(t, tg, options(2000))
	var ex *Finding
	for i, f := range r.Findings {
		if f.Method == "exact, exhaustive" {
			ex = &r.Findings[i]
		}
	}
	if ex == nil || ex.Kind != "every within-set pair (54 pairs)" || ex.Violates() || !(ex.Bound > 0) {
		t.Fatalf("exhaustive finding %+v, want 54 pairs with a positive loss within the claim", ex)
	}
	if v := r.Violations(); len(v) > 0 {
		t.Errorf("correct custext rejected: %s", v[0].Describe())
	}
	for _, f := range r.Skipped {
		if !strings.Contains(f.Reason, "different customised sets") && !strings.Contains(f.Reason, "out-of-vocabulary") {
			t.Errorf("skipped %s %s: reason %q", f.Level, f.Kind, f.Reason)
		}
	}
	o2 := options(2000)
	o2.Claim, o2.ClaimSet = ex.Bound/ex.Units/2, true
	if v := mustRun(t, tg, o2).Violations(); len(v) == 0 || v[0].Method != "exact, exhaustive" {
		t.Errorf("custext held to half its largest within-set loss passed: %v", v)
	}
}

// TestSynTFTightClaim: SynTF with the tight bound is audited against ℓ (its ClaimEpsilon), at
// the pair where ℓ is attained, whose exact loss equals ℓ; a sampler at twice the scale held to
// the ℓ of the original (the fault of a bound computed apart from the sampler) fails there.
func TestSynTFTightClaim(t *testing.T) {
	store := fixtures.Grid(t, 6)
	opts := syntf.DefaultSynTFOptions()
	opts.Length, opts.RemoveStopwords, opts.TightBound = 5, false, true
	m, err := syntf.NewSynTF(store, 3, opts)
	if err != nil {
		t.Fatal(err)
	}
	ell := m.Ell().Ell
	if !(ell > 0 && ell <= 3) || m.ClaimEpsilon() != ell {
		t.Fatalf("ℓ = %v, claim %v: want 0 < ℓ ≤ ε and the claim ℓ", ell, m.ClaimEpsilon())
	}
	tg := target(t, "syntf", m, store)
	r := mustRun(t, tg, options(500))
	found := false
	for _, f := range r.Findings {
		if f.Kind == "where the claim is attained" {
			found = true
			if math.Abs(f.Bound-ell) > 1e-9*ell {
				t.Errorf("exact loss at ℓ's pair %v, want ℓ = %v", f.Bound, ell)
			}
		}
	}
	if !found || len(r.Violations()) > 0 {
		t.Fatalf("claim's pair tested %v, violations %v", found, r.Violations())
	}
	opts.TightBound = false
	double, err := syntf.NewSynTF(store, 6, opts)
	if err != nil {
		t.Fatal(err)
	}
	bad := target(t, "syntf", double, store)
	bad.Epsilon, bad.ClaimPairs = ell, tg.ClaimPairs
	v := mustRun(t, bad, options(500)).Violations()
	if len(v) == 0 || v[0].Kind != "where the claim is attained" {
		t.Errorf("sampler at twice the scale held to the original ℓ: violations %v", v)
	}
}

// TestSamplerFalseFailureRate audits the correct exponential mechanism (exact losses and the χ²
// tests of its sampler) at 20 seeds at family-wise α = 0.05: each run fails with probability at
// most 0.05, so more than 4 failures in 20 has probability below 0.003 (binomial tail), and
// this test fails only then.
func TestSamplerFalseFailureRate(t *testing.T) {
	store := fixtures.Grid(t, 6)
	m, err := expmech.NewExpMech(store, 40, expmech.DefaultExpMechOptions())
	if err != nil {
		t.Fatal(err)
	}
	tg := target(t, "expmech", m, store)
	failures := 0
	for seed := range uint64(20) {
		o := DefaultOptions()
		o.Samples, o.Pairs, o.Seed, o.Candidates = 1000, 2, seed+1, store.Len()
		if len(mustRun(t, tg, o).Violations()) > 0 {
			failures++
		}
	}
	t.Logf("%d of 20 runs failed at α = 0.05", failures)
	if failures > 4 {
		t.Errorf("%d of 20 audits of a correct mechanism failed at α = 0.05", failures)
	}
}

// TestSamplesToRefute: the K it returns is the first whose ceiling reaches the claim (within
// its 1 % search step).
func TestSamplesToRefute(t *testing.T) {
	r := &Report{Samples: 3000, Level: 0.05 / 84}
	for _, c := range []float64{3, 8, 12} {
		k := r.SamplesToRefute(c)
		if SampledCeiling(int(k), r.Level) < c || (k > 3000 && SampledCeiling(int(k/1.02), r.Level) >= c) {
			t.Errorf("claim %v: K = %v, ceilings %v at K and %v at K/1.02", c, k, SampledCeiling(int(k), r.Level), SampledCeiling(int(k/1.02), r.Level))
		}
	}
	if !math.IsInf(r.SamplesToRefute(100), 1) {
		t.Error("claim 100: want +Inf (beyond any sample)")
	}
}
