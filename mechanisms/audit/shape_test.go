package audit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
)

// TestTrigamma: ψ′(1) = π²/6, ψ′(1/2) = π²/2, and ψ′(100) within 10⁻¹² of its series.
func TestTrigamma(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{{1, math.Pi * math.Pi / 6}, {0.5, math.Pi * math.Pi / 2}, {100, 0.010050166663333571}} {
		if got := trigamma(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ψ′(%v) = %.15g, want %.15g", c.x, got, c.want)
		}
	}
}

// TestNoiseShapeMinusOne: EMD whose radius is Gamma(n − 1, 1/ε) instead of Gamma(n, 1/ε), in
// 100 dimensions (GloVe's) at the default K = 3,000 (the radius tests draw K_n = 10,000), fails
// the radius shape test at the claimed scale on every input word with z ≈ −10 against a
// critical value near −3.7, each by more than 3 standard deviations (z ≈ −10.1 ± 1: power of
// the margin ≈ 1 − 3·10⁻⁴ per word); the same wrapper drawing Gamma(n, 1/ε)
// passes every noise test (false-failure rate at most the family-wise α = 0.01 of options).
// Before this test existed only the radius scale test caught the mutant, at 10.04–10.06 against
// a claim of 10.
func TestNoiseShapeMinusOne(t *testing.T) {
	const dim, eps = 100, 10
	store := fixtures.RandomStore(t, rngs.New(3, "audit/test/shape"), 200, dim, 1)
	emd, err := metricdp.NewEMD(store, eps, metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 1, Order: mechanisms.OrderKeep})
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []float64{dim, dim - 1} {
		tg := target(t, "emd", emd, store)
		tg.Noise = mutantNoise{NoiseStep: emd, draw: func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, func() float64 { return distuv.Gamma{Alpha: shape, Beta: eps, Src: rng}.Rand() }, nil)
		}}
		o := options(3000)
		o.Pairs = 2
		r := mustRun(t, tg, o)
		words, failed := map[string]bool{}, map[string]bool{}
		for _, f := range r.Findings {
			if f.Level != "noise" || !strings.HasPrefix(f.Kind, "radius shape at") {
				continue
			}
			words[f.X[0]] = true
			// With margin: z at least 3 below the critical value (expected −10.1 against about
			// −3.7; K = 3,000 draws alone reach only about −5.9, so this needs the K_n draws).
			if z, crit := distuv.UnitNormal.Quantile(f.PValue), distuv.UnitNormal.Quantile(r.Level); f.Violates() && z < crit-3 {
				failed[f.X[0]] = true
			}
			t.Logf("shape %v, %s: %s", shape, f.X[0], f.Output)
		}
		if len(words) < 2 {
			t.Fatalf("shape %v: %d input words tested", shape, len(words))
		}
		if shape == dim {
			for _, f := range noiseViolations(r) {
				t.Errorf("correct radius rejected: %s", f.Describe())
			}
		} else if len(failed) != len(words) {
			t.Errorf("shape n − 1: %d of %d input words failed the radius shape test at the claimed scale by 3 standard deviations", len(failed), len(words))
		}
	}
}
