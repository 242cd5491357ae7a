package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/embeddings"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
)

// The noise-step tests run at the audit's Bonferroni level a per test: a mechanism with the
// right noise fails one with probability at most α (family-wise; α = 0.01 in these tests, so
// each deterministic test below passes a correct mechanism except for a seed in 100). Their
// power at K = 3,000 in dimension n: the scale test rejects noise whose ε exceeds the claim by
// a factor 1 + 3.5/√(nK) half the time (2.6 % at n = 6), the Kolmogorov–Smirnov tests any
// shape or direction change that moves a distribution function by 0.04. Every mutant below is
// far beyond that and is rejected at a fixed seed.

// ellipticStore has 300 words in 6 dimensions whose coordinates have standard deviations 1 to 6
// (an anisotropic vocabulary, so that Mahalanobis noise differs from spherical noise).
func ellipticStore(t testing.TB) *embeddings.Store {
	rng := rngs.New(7, "audit/test/elliptic")
	const n, dim = 300, 6
	words := make([]string, n)
	vecs := make([]float32, 0, n*dim)
	for i := range n {
		words[i] = fmt.Sprintf("e%d", i)
		for j := range dim {
			vecs = append(vecs, float32(rng.NormFloat64()*float64(j+1)))
		}
	}
	s, err := embeddings.New(words, dim, vecs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func target(t testing.TB, name string, m mechanisms.Mechanism, store *embeddings.Store) *Target {
	tg, err := NewTarget(name, m, store)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// noiseMechanisms builds every noise-then-decode mechanism at ε over store.
func noiseMechanisms(t testing.TB, store *embeddings.Store, eps float64) map[string]mechanisms.Mechanism {
	out := map[string]mechanisms.Mechanism{}
	add := func(name string, m mechanisms.Mechanism, err error) {
		if err != nil {
			t.Fatal(err)
		}
		out[name] = m
	}
	m1, err := metricdp.NewEMD(store, eps, metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 1, Order: mechanisms.OrderBag})
	add("emd", m1, err)
	m2, err := metricdp.NewCMP(store, eps, metricdp.CMPOptions{OOV: metricdp.OOVKeep, Workers: 1})
	add("cmp", m2, err)
	mo := metricdp.DefaultMahalanobisOptions()
	mo.Workers = 1
	m3, err := metricdp.NewMahalanobis(store, eps, mo)
	add("mahalanobis", m3, err)
	vo := metricdp.DefaultVickreyOptions()
	vo.Workers = 1
	m4, err := metricdp.NewVickrey(store, eps, vo)
	add("vickrey", m4, err)
	vo.Noise = metricdp.VickreyNoiseMahalanobis
	m5, err := metricdp.NewVickrey(store, eps, vo)
	add("vickrey-mahalanobis", m5, err)
	return out
}

func noiseViolations(r *Report) []Finding {
	var v []Finding
	for _, f := range r.Violations() {
		if f.Level == "noise" {
			v = append(v, f)
		}
	}
	return v
}

// TestNoiseStepCorrectMechanismsPass: every noise-then-decode mechanism passes its own noise
// tests, and the tests are there (scale, shape, directions, metric for every input word).
func TestNoiseStepCorrectMechanismsPass(t *testing.T) {
	store := ellipticStore(t)
	for name, m := range noiseMechanisms(t, store, 2) {
		tg := target(t, name, m, store)
		if tg.Noise == nil {
			t.Fatalf("%s: no noise step", name)
		}
		r := mustRun(t, tg, options(3000))
		kinds := map[string]int{}
		for _, f := range r.Findings {
			if f.Level == "noise" {
				kinds[f.Kind[:min(len(f.Kind), 9)]]++
			}
		}
		if kinds["radius sc"] != 9 || kinds["radius sh"] != 18 || kinds["direction"] != 18 || kinds["metric"] != 9 {
			t.Errorf("%s: noise findings %v, want 9 words × (scale, 2 shapes, 2 directions, metric)", name, kinds)
		}
		for _, f := range noiseViolations(r) {
			t.Errorf("%s: correct noise rejected: %s", name, f.Describe())
		}
	}
}

// mutantNoise replaces the noise draw of a mechanism's noise step.
type mutantNoise struct {
	mechanisms.NoiseStep
	draw func(rng *rand.Rand, phi []float32, k int) []float64
}

func (m mutantNoise) NoisyVectors(rng *rand.Rand, word string, k int) ([]float64, error) {
	phi, ok := m.WordVector(word)
	if !ok {
		return nil, fmt.Errorf("%q not in the vocabulary", word)
	}
	return m.draw(rng, phi, k), nil
}

// drawNoise writes φ + r·dir(u) for k draws, r from radius and the direction from direction
// (a uniform direction when nil).
func drawNoise(rng *rand.Rand, phi []float32, k int, radius func() float64, direction func(u []float64)) []float64 {
	n := len(phi)
	out := make([]float64, k*n)
	u := make([]float64, n)
	for i := range k {
		r := radius()
		s := 0.0
		for j := range u {
			u[j] = rng.NormFloat64()
			s += u[j] * u[j]
		}
		for j := range u {
			u[j] /= math.Sqrt(s)
		}
		if direction != nil {
			direction(u)
		}
		for j, v := range phi {
			out[i*n+j] = float64(v) + r*u[j]
		}
	}
	return out
}

// TestNoiseStepMutants: noise too small (scale ×2, i.e. the claim at half the mechanism's ε;
// ×100; none at all), of the wrong shape (a uniform radius of the right mean; Gaussian noise of
// the right mean radius), biased in direction, and a claim on a metric smaller than the noise's
// (wrong sensitivity) are each rejected by the noise tests; the same wrapper with the right
// noise passes (so the rejections are the mutations').
func TestNoiseStepMutants(t *testing.T) {
	store := ellipticStore(t)
	const eps = 2
	emd, err := metricdp.NewEMD(store, eps, metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 1, Order: mechanisms.OrderKeep})
	if err != nil {
		t.Fatal(err)
	}
	n := float64(store.Dim())
	gamma := func(rng *rand.Rand, e float64) func() float64 {
		return func() float64 { return distuv.Gamma{Alpha: n, Beta: e, Src: rng}.Rand() }
	}
	type mutant struct {
		name  string
		draw  func(rng *rand.Rand, phi []float32, k int) []float64
		units float64 // factor on the claimed distance (1: unchanged)
		want  string  // the kind of noise finding that must fail ("" for the control)
	}
	partner := make([]float64, store.Dim()) // the biased mutant leans towards the first axis
	partner[0] = 1
	mutants := []mutant{
		{"control", func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, gamma(rng, eps), nil)
		}, 1, ""},
		{"scale ×2", func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, gamma(rng, 2*eps), nil)
		}, 1, "radius scale"},
		{"scale ×100", func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, gamma(rng, 100*eps), nil)
		}, 1, "radius scale"},
		{"no noise", func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, func() float64 { return 0 }, nil)
		}, 1, "radius scale"},
		{"uniform radius", func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, func() float64 { return rng.Float64() * 2 * n / eps }, nil)
		}, 1, "radius shape"},
		{"gaussian", func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, func() float64 {
				s := 0.0
				for range int(n) {
					g := rng.NormFloat64()
					s += g * g
				}
				return math.Sqrt(s/n) * n / eps
			}, nil)
		}, 1, "radius shape"},
		{"biased direction", func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, gamma(rng, eps), func(u []float64) {
				s := 0.0
				for j := range u {
					u[j] += 0.3 * partner[j]
					s += u[j] * u[j]
				}
				for j := range u {
					u[j] /= math.Sqrt(s)
				}
			})
		}, 1, "direction"},
		{"half sensitivity", func(rng *rand.Rand, phi []float32, k int) []float64 {
			return drawNoise(rng, phi, k, gamma(rng, eps), nil)
		}, 0.5, "metric"},
	}
	for _, mu := range mutants {
		tg := target(t, "cmp", emd, store)
		tg.Noise = mutantNoise{NoiseStep: emd, draw: mu.draw}
		units := tg.WordUnits
		tg.WordUnits = func(x, y string) float64 { return mu.units * units(x, y) }
		r := mustRun(t, tg, options(3000))
		v := noiseViolations(r)
		if mu.want == "" {
			for _, f := range v {
				t.Errorf("%s: rejected: %s", mu.name, f.Describe())
			}
			continue
		}
		found := false
		for _, f := range v {
			found = found || len(f.Kind) >= len(mu.want) && f.Kind[:len(mu.want)] == mu.want
		}
		if !found {
			t.Errorf("%s: no %q noise finding rejected; violations %d of %d", mu.name, mu.want, len(v), len(r.Findings))
		}
	}
}

// otherNoise draws the noise of another mechanism while keeping the claimed metric.
type otherNoise struct {
	mechanisms.NoiseStep
	draws mechanisms.NoiseStep
}

func (o otherNoise) NoisyVectors(rng *rand.Rand, word string, k int) ([]float64, error) {
	return o.draws.NoisyVectors(rng, word, k)
}

// TestNoiseStepWrongCovariance: Mahalanobis noise (λ = 0.75 over an anisotropic vocabulary)
// held to CMP's Euclidean claim, and spherical noise held to the Mahalanobis claim, are
// rejected; each mechanism's own noise passes (TestNoiseStepCorrectMechanismsPass).
func TestNoiseStepWrongCovariance(t *testing.T) {
	store := ellipticStore(t)
	ms := noiseMechanisms(t, store, 2)
	for _, c := range [][2]string{{"cmp", "mahalanobis"}, {"mahalanobis", "cmp"}} {
		tg := target(t, c[0], ms[c[0]], store)
		tg.Noise = otherNoise{NoiseStep: tg.Noise, draws: ms[c[1]].(mechanisms.NoiseStep)}
		if v := noiseViolations(mustRun(t, tg, options(3000))); len(v) == 0 {
			t.Errorf("%s noise held to the %s claim passed", c[1], c[0])
		}
	}
}

// TestNoiseStepFalseFailureRate audits the correct EMD noise step at 20 seeds at family-wise
// α = 0.05 (K = 1,000, the noise tests of 3 input words): each run fails with probability at
// most 0.05, so more than 4 failures in 20 has probability below 0.003 under a correct test
// (binomial tail), and this test fails only then.
func TestNoiseStepFalseFailureRate(t *testing.T) {
	store := ellipticStore(t)
	m, err := metricdp.NewCMP(store, 2, metricdp.CMPOptions{OOV: metricdp.OOVKeep, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	tg := target(t, "cmp", m, store)
	failures := 0
	for seed := range uint64(20) {
		o := DefaultOptions()
		o.Samples, o.Pairs, o.Seed, o.Candidates = 1000, 1, seed+1, store.Len()
		if len(mustRun(t, tg, o).Violations()) > 0 {
			failures++
		}
	}
	t.Logf("%d of 20 runs failed at α = 0.05", failures)
	if failures > 4 {
		t.Errorf("%d of 20 audits of a correct mechanism failed at α = 0.05", failures)
	}
}
