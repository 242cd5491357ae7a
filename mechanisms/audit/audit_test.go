package audit

import (
	"fmt"
	"math"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/mechanisms"
	"dptext/mechanisms/expmech"
	"dptext/mechanisms/metricdp"
	"dptext/mechanisms/syntf"
)

// The power tests below audit correct mechanisms, which must pass, and deliberately wrong
// variants built here (never reachable from a config), which must be rejected. Sampled bounds
// hold at family-wise level α = 0.01: a correct mechanism fails an audit with probability at
// most 0.01 over the audit's randomness (the seeds are fixed, so each test is deterministic).
const testAlpha = 0.01

func options(samples int) Options {
	o := DefaultOptions()
	o.Samples, o.Alpha, o.Candidates = samples, testAlpha, 1000
	return o
}

func emdTarget(t *testing.T, store *embeddings.Store, eps float64, order string) *Target {
	m, err := metricdp.NewEMD(store, eps, metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 1, Order: order})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := NewTarget("emd", m, store)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func mustRun(t *testing.T, tg *Target, o Options) *Report {
	t.Helper()
	r, err := Run(tg, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAuditEMD: the correct EMD passes at ε = 1 on a unit grid (K = 3000 per input and half);
// EMD whose noise is 100 times too small for the ε it claims (it runs at 100ε) is rejected, its
// nearest-neighbour outputs bounded far above the claim ε·d = 1.
func TestAuditEMD(t *testing.T) {
	store := fixtures.Grid(t, 10)
	good := mustRun(t, emdTarget(t, store, 1, mechanisms.OrderBag), options(3000))
	if v := good.Violations(); len(v) > 0 {
		t.Errorf("correct EMD rejected: %s", v[0].Describe())
	}
	if !good.Measured() || good.AuditedEpsilon() > 1 || good.AuditedEpsilon() <= 0 {
		t.Errorf("correct EMD audited ε %v, want in (0, 1]", good.AuditedEpsilon())
	}
	weak := emdTarget(t, store, 100, mechanisms.OrderBag)
	weak.Epsilon = 1 // claims ε while its noise has scale 1/(100ε)
	bad := mustRun(t, weak, options(3000))
	word, noise := false, false
	for _, f := range bad.Violations() {
		word = word || f.Level == "word" && f.Bound >= 4
		noise = noise || f.Level == "noise" && f.Kind == "radius scale"
	}
	if !word || !noise {
		t.Fatalf("EMD with noise scale 1/(100ε): word-level bound ≥ 4 %v, radius scale rejected %v; findings %+v", word, noise, bad.Findings)
	}
}

// TestAuditOrderedEMDAgainstBagClaim: EMD released in place but held to the bag claim (the
// distance of its bags, 0 for two swapped words) is rejected by the swap game; the bag release
// passes it, and the in-place release passes its own positional claim.
func TestAuditOrderedEMDAgainstBagClaim(t *testing.T) {
	store := fixtures.Grid(t, 10)
	bagEMD, err := metricdp.NewEMD(store, 1, metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 1, Order: mechanisms.OrderBag})
	if err != nil {
		t.Fatal(err)
	}
	ordered := emdTarget(t, store, 1, mechanisms.OrderKeep)
	positional := mustRun(t, ordered, options(2000))
	if v := positional.Violations(); len(v) > 0 {
		t.Errorf("in-place EMD rejected under its positional claim: %s", v[0].Describe())
	}
	ordered.DocUnits = bagEMD.PairDistance // the overclaim: the bag bound for an ordered release
	r := mustRun(t, ordered, options(2000))
	found := false
	for _, f := range r.Violations() {
		if f.Kind == "two words swapped" {
			found = true
		}
	}
	if !found {
		t.Errorf("ordered EMD held to the bag claim passed; findings %+v", r.Findings)
	}
	for _, f := range mustRun(t, emdTarget(t, store, 1, mechanisms.OrderBag), options(2000)).Findings {
		if f.Kind == "two words swapped" && f.Violates() {
			t.Errorf("bag EMD rejected by the swap game: %s", f.Describe())
		}
	}
}

// clusterStore has the word "x" at (1, 0) and 1000 words "cI" near (−1, 0), so that the
// normalisers of the exponential mechanism for x and for a cluster word differ as much as
// possible: the case where sampling at ε/Δ instead of ε/(2Δ) exceeds ε.
func clusterStore(t *testing.T) *embeddings.Store {
	words := []string{"x"}
	vecs := []float32{1, 0}
	for i := range 1000 {
		words = append(words, fmt.Sprintf("c%d", i))
		vecs = append(vecs, -1, float32(i-500)*1e-4)
	}
	s, err := embeddings.New(words, 2, vecs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAuditExpMech: the token sampler passes at ε = 2 with exact word-level ratios and the
// likelihood-ratio game; a sampler at scale ε/Δ (the exponential mechanism without its factor
// 1/2), built from the package's own probability code, is rejected exactly.
func TestAuditExpMech(t *testing.T) {
	store := clusterStore(t)
	const eps = 2
	m, err := expmech.NewExpMech(store, eps, expmech.DefaultExpMechOptions())
	if err != nil {
		t.Fatal(err)
	}
	tg, err := NewTarget("expmech", m, store)
	if err != nil {
		t.Fatal(err)
	}
	o := options(2000)
	o.Candidates = store.Len()
	good := mustRun(t, tg, o)
	if v := good.Violations(); len(v) > 0 {
		t.Errorf("correct expmech rejected: %s", v[0].Describe())
	}
	exact := 0
	for _, f := range good.Findings {
		if f.Exact {
			exact++
		}
		if f.Level == "document" && f.Method != "likelihood ratio" && f.Kind != "one OOV word changed" {
			t.Errorf("%s: distinguisher %s, want the likelihood ratio", f.Kind, f.Method)
		}
	}
	if exact == 0 {
		t.Error("no exact word-level finding for expmech")
	}
	// The mutant: P(v|x) ∝ exp(ε·ρ(x, v)) with ρ the embedding rating (cos + 1)/2.
	unit := func(w string) (float64, float64) {
		v := store.Vector(func() int { r, _ := store.Lookup(w); return r }())
		n := math.Hypot(float64(v[0]), float64(v[1]))
		return float64(v[0]) / n, float64(v[1]) / n
	}
	mutant := *tg
	mutant.LogProbabilities = func(w string) ([]float64, bool) {
		if _, ok := store.Lookup(w); !ok {
			return nil, false
		}
		ax, ay := unit(w)
		ratings := make([]float64, store.Len())
		for r := range ratings {
			bx, by := unit(store.Word(r))
			ratings[r] = (ax*bx + ay*by + 1) / 2
		}
		return mechanisms.ExponentialLogProbabilities(ratings, eps), true
	}
	bad := mustRun(t, &mutant, o)
	v := bad.Violations()
	// The sampler (at ε/(2Δ)) no longer matches this computed distribution, which the own-word
	// test may reject too; the exact word-level ratio must exceed the claim.
	exactCaught := false
	for _, f := range v {
		exactCaught = exactCaught || f.Exact && f.Level == "word" && f.Bound >= 1.5*eps
	}
	if !exactCaught {
		t.Fatalf("expmech at ε/Δ not rejected exactly with a ratio ≥ 1.5ε: %+v", v)
	}
}

// TestAuditRandomAndSynTF: the random baseline's exact ratios are 0 (its claim); SynTF passes
// its per-word claim exactly.
func TestAuditRandomAndSynTF(t *testing.T) {
	store := fixtures.Grid(t, 6)
	rnd, err := expmech.NewRandom(store.Words())
	if err != nil {
		t.Fatal(err)
	}
	tg, err := NewTarget("random", rnd, store)
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, tg, options(500))
	if v := r.Violations(); len(v) > 0 || r.AuditedEpsilon() != 0 {
		t.Errorf("random: violations %v, audited ε %v", v, r.AuditedEpsilon())
	}
	opts := syntf.DefaultSynTFOptions()
	opts.Length, opts.RemoveStopwords = 5, false
	st, err := syntf.NewSynTF(store, 3, opts)
	if err != nil {
		t.Fatal(err)
	}
	tg, err = NewTarget("syntf", st, store)
	if err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, tg, options(300))
	if v := r.Violations(); len(v) > 0 {
		t.Errorf("syntf rejected: %s", v[0].Describe())
	}
	if a := r.AuditedEpsilon(); !(a > 0 && a <= st.ClaimEpsilon()) {
		t.Errorf("syntf audited ε %v, want in (0, %v]", a, st.ClaimEpsilon())
	}
	// A claim several times smaller fails.
	o := options(300)
	o.Claim, o.ClaimSet = 0.1, true
	if v := mustRun(t, tg, o).Violations(); len(v) == 0 {
		t.Error("syntf at ε = 3 passed a claim of 0.1")
	}
}

// TestSampledCeiling: the ceiling is about ln(K/ln(1/a)) (SPEC §7: 6.0 at K = 3,000 with the
// default audit's level α/(2·42) at α = 0.05: 42 tests), a sampled test reaches it exactly when an output
// is seen in every draw under one input and never under the other (here: the identity, audited
// by sampling only), and a test whose claim is above it is marked as unable to fail.
func TestSampledCeiling(t *testing.T) {
	a := 0.05 / 84
	if c, approx := SampledCeiling(3000, a), math.Log(3000/math.Log(1/a)); math.Abs(c-approx) > 0.01 || math.Abs(c-6.0) > 0.05 {
		t.Errorf("ceiling at K = 3000: %v, want about %v and 6.0", c, approx)
	}
	store := fixtures.Grid(t, 4)
	tg, err := NewTarget("none", mechanisms.None{}, store)
	if err != nil {
		t.Fatal(err)
	}
	tg.LogProbabilities = nil // the sampled path only
	o := options(300)
	o.Claim, o.ClaimSet = 100, true
	r := mustRun(t, tg, o)
	for _, f := range r.Findings {
		if f.Level != "word" {
			continue
		}
		if math.Abs(f.Bound-f.Ceiling) > 1e-9 || !f.CannotFail() || f.Violates() {
			t.Errorf("identity sampled: bound %v, ceiling %v, cannot fail %v, violates %v; want the bound at the ceiling, below the claim",
				f.Bound, f.Ceiling, f.CannotFail(), f.Violates())
		}
	}
	if r.Unfailable() != len(r.Findings) || r.AuditedCeiling() < r.AuditedEpsilon() {
		t.Errorf("%d of %d findings unfailable, ceiling %v, audited %v", r.Unfailable(), len(r.Findings), r.AuditedCeiling(), r.AuditedEpsilon())
	}
	// Adaptive K: at claim 8 the identity's sampled word tests draw the K that reaches 8 (about
	// e^8·ln(1/a) ≈ 30,000 per input) and fail; without it they cannot.
	o.Claim, o.MaxSamples = 8, 1_000_000
	words := 0
	for _, f := range mustRun(t, tg, o).Findings {
		if f.Level == "word" {
			words++
			if !f.Violates() || f.Ceiling < 8 {
				t.Errorf("adaptive K: %s", f.Describe())
			}
		}
	}
	if words == 0 {
		t.Error("no word findings")
	}
}

// TestViolatesTolerance: an exact loss equal to its claim up to rounding (1e-10 relative, as
// two log-sum-exps over 30,000 words summed in different orders differ) passes; 1e-6 above
// fails.
func TestViolatesTolerance(t *testing.T) {
	const c = 12.49412265467962
	if (Finding{Bound: c * (1 + 1e-10), Claim: c}).Violates() {
		t.Error("rounding taken for a violation")
	}
	if !(Finding{Bound: c * (1 + 1e-6), Claim: c}).Violates() {
		t.Error("an excess of 1e-6 relative passed")
	}
}

// TestTwoStageClaim: the two-stage expmech is audited against ε₁ + ε per word, the budget its
// guarantee prints, not against the ε of its second stage alone.
func TestTwoStageClaim(t *testing.T) {
	store := fixtures.Grid(t, 6)
	o := expmech.DefaultExpMechOptions()
	o.Candidates, o.CandidateEpsilon = 5, 3
	m, err := expmech.NewExpMech(store, 2, o)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := NewTarget("expmech", m, store)
	if err != nil {
		t.Fatal(err)
	}
	doc := []string{store.Word(0), store.Word(1)}
	if tg.Epsilon != 5 || tg.DocUnits(doc, doc) != 2 || m.Guarantee(doc).Epsilon != 10 {
		t.Errorf("claim %v per word, %v units for 2 words, guarantee %v: want 5, 2 and 10", tg.Epsilon, tg.DocUnits(doc, doc), m.Guarantee(doc).Epsilon)
	}
}
