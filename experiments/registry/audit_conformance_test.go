package registry

import (
	"math"
	"strings"
	"testing"

	"dptext/mechanisms/audit"
)

// TestAuditConformance audits every registered mechanism on the golden inputs, so that a
// mechanism cannot be registered without passing (its outputs are pinned separately by
// TestRegistryVersionsPinOutputs, and its audit draws through the runner's release path, see
// TestAuditDrawsThroughReleasePath): the audit — word pairs, the pair nearest its claim among
// every pair of the vocabulary (where doubling ε shows: SanText at 2ε fails there, see
// audit.TestDoubledSanTextFails), distinguishing games, its noise step against the density the
// claim requires and its decoding against an exact re-decoding, its sampler and its own-word
// mass against its computed distribution — passes the mechanism's own claim, and fails the same mechanism held to half its claim (the
// mechanism with its privacy parameter doubled, relative to the claim). A mechanism that claims
// nothing must be refuted at a finite claim where its release is deterministic (the identity),
// and one that states no finite bound must have its pairs reported unprotected. All sampled
// tests run at family-wise α = 0.01: a correct mechanism fails its own claim with probability
// at most 0.01 over the fixed seed.
func TestAuditConformance(t *testing.T) {
	store, train, _, _, _, raw := goldenInputs(t)
	env := &Env{Embeddings: store, Workers: 1, Corpus: train, RawTexts: raw, Check: true}
	for _, name := range MechanismNames() {
		t.Run(name, func(t *testing.T) {
			entry := Mechanisms[name]
			o, err := entry.Decode(goldenParams(t, name, store, train))
			if err != nil {
				t.Fatal(err)
			}
			m, err := o.Build(env, 10)
			if err != nil {
				if m, err = o.Build(env, 1000); err != nil {
					t.Fatal(err)
				}
			}
			tg, err := audit.NewTarget(name, m, env.Embeddings)
			if err != nil {
				t.Fatal(err)
			}
			opts := audit.DefaultOptions()
			opts.Samples, opts.Alpha, opts.Pairs, opts.Candidates = 1000, 0.01, 3, store.Len()
			own, err := audit.Run(tg, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range own.Violations() {
				t.Errorf("fails its own claim %v: %s (the mechanism's outputs break its Guarantee: fix the mechanism or state the claim it meets)", own.Claim, f.Describe())
			}
			t.Logf("claim %v: audited %.4g (ceiling %.4g), %d findings, %d skipped", own.Claim, own.AuditedEpsilon(), own.AuditedCeiling(), len(own.Findings), len(own.Skipped))
			words, samplers, noise := 0, 0, 0
			exact := 0.0
			for _, f := range own.Findings {
				switch f.Level {
				case "sampler":
					samplers++
				case "noise":
					noise++
				}
				if f.Level == "word" {
					words++
					if f.Exact {
						exact = math.Max(exact, f.PerUnit())
					}
				}
			}
			if exact > 0 && samplers == 0 {
				t.Error("exact distributions but no test of the sampler against them")
			}
			if tg.Noise != nil && noise == 0 && !math.IsInf(own.Claim, 1) {
				t.Error("a noise step but no test of it")
			}
			half := opts
			half.ClaimSet = true
			switch {
			case math.IsInf(own.Claim, 1) && tg.NoBound:
				// No bound between different words (truncated-gumbel): nothing audited at its own
				// claim; a finite per-word claim given must be refuted (a word's farthest word is
				// never released for it, but releases itself).
				if len(own.Findings) != 0 {
					t.Errorf("claim ∞: %d findings, want nothing audited", len(own.Findings))
				}
				for _, f := range own.Skipped {
					if !strings.HasPrefix(f.Reason, "unprotected (∞)") {
						t.Errorf("skipped %s %s: reason %q; want it reported unprotected", f.Level, f.Kind, f.Reason)
					}
				}
				half.Claim = 1
			case math.IsInf(own.Claim, 1):
				if name != "none" {
					t.Logf("claims no privacy: nothing to refute")
					return
				}
				half.Claim = 10 // the identity is a point mass: any finite claim fails
			case words == 0:
				// No finite bound between different words (truncated-gumbel): every word pair
				// must be reported unprotected, with its reason.
				for _, f := range own.Skipped {
					if !strings.HasPrefix(f.Reason, "unprotected (∞)") {
						t.Errorf("skipped %s %s: reason %q; a mechanism with no finite bound between different words must report every such pair as unprotected (its method UnprotectedReason, see audit.NewTarget)", f.Level, f.Kind, f.Reason)
					}
				}
				return
			case own.Claim == 0:
				// The random baseline claims 0 and has no parameter to double: its exact
				// losses must be 0.
				if own.AuditedEpsilon() != 0 || exact != 0 {
					t.Errorf("claims 0, audited %v", own.AuditedEpsilon())
				}
				return
			case exact > 0 && exact < own.Claim/2:
				t.Logf("largest exact loss %.4g per unit, below half the claim %v", exact, own.Claim)
				// The exact losses of the tested pairs are below half the claim (a loose
				// claim, e.g. a barely trained generator's ratings): the audit must fail a
				// claim 10 % below the largest exact loss it computed.
				half.Claim = 0.9 * exact
			default:
				half.Claim = own.Claim / 2
			}
			r, err := audit.Run(tg, half)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Violations()) == 0 {
				t.Errorf("passes claim %v (own claim %v, largest exact loss %v): the audit cannot refute half the claim, so it tests too little of this mechanism; expose the capabilities audit.NewTarget lists (PairBounder, IndependentPositions, LogProbabilities or NoiseStep) or state a tighter claim", half.Claim, own.Claim, exact)
			}
		})
	}
}
