package metricdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/internal/linalg"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// lineStore is a one-dimensional vocabulary a, b, c at 0, 1 and 3.
func lineStore(t *testing.T) *embeddings.Store {
	s, err := embeddings.New([]string{"a", "b", "c"}, 1, []float32{0, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lineProbabilities is the exact output distribution of one word at position x of the line
// store {0, 1, 3} under one-dimensional Laplace noise of parameter ε (density (ε/2)e^{−ε|z−x|},
// which is the n = 1 case of Gamma(1, 1/ε) radius times a random sign) followed by Vickrey's
// choice with threshold t (t = 0: CMP), by midpoint integration over z ∈ [x−60/ε, x+60/ε].
func lineProbabilities(x, epsilon, tt float64) []float64 {
	points := []float64{0, 1, 3}
	p := make([]float64, 3)
	const steps = 400000
	lo, hi := x-60/epsilon, x+60/epsilon
	h := (hi - lo) / steps
	for i := range steps {
		z := lo + (float64(i)+0.5)*h
		w := epsilon / 2 * math.Exp(-epsilon*math.Abs(z-x)) * h
		order := []int{0, 1, 2}
		slices.SortStableFunc(order, func(a, b int) int {
			da, db := math.Abs(z-points[a]), math.Abs(z-points[b])
			switch {
			case da < db:
				return -1
			case da > db:
				return 1
			}
			return 0
		})
		d1, d2 := math.Abs(z-points[order[0]]), math.Abs(z-points[order[1]])
		p2 := 0.0
		if tt*d1 > 0 {
			p2 = tt * d1 / (tt*d1 + (1-tt)*d2)
		}
		p[order[0]] += w * (1 - p2)
		p[order[1]] += w * p2
	}
	return p
}

// chiSquare is Pearson's statistic of counts against probabilities p (summing to about 1).
func chiSquare(counts map[string]int, words []string, p []float64, n int) float64 {
	s := 0.0
	for i, w := range words {
		e := p[i] * float64(n)
		d := float64(counts[w]) - e
		s += d * d / e
	}
	return s
}

// TestCMPAndVickreyMatchExactLineDistribution draws 20,000 outputs of the word b (at 1) on the
// line store at ε = 1 with CMP and with Vickrey (Laplace noise, t = 0.3 and 0.5) and compares
// them with the exact distribution by Pearson's χ² test with 2 degrees of freedom. Critical value
// for a false-failure rate α = 0.001 per case: 13.82. The same counts tested against the
// distribution at 1.5ε (a mis-scaled ε) must exceed it, which shows the test's power.
func TestCMPAndVickreyMatchExactLineDistribution(t *testing.T) {
	const n, eps, critical = 20000, 1.0, 13.82
	store := lineStore(t)
	words := []string{"a", "b", "c"}
	for _, tt := range []float64{0, 0.3, 0.5} {
		var m mechanisms.Mechanism
		var err error
		if tt == 0 {
			m, err = NewCMP(store, eps, CMPOptions{OOV: OOVKeep, Workers: 1})
		} else {
			m, err = NewVickrey(store, eps, VickreyOptions{OOV: OOVKeep, Workers: 1, Noise: VickreyNoiseLaplace, T: tt})
		}
		if err != nil {
			t.Fatal(err)
		}
		doc := make([]string, n)
		for i := range doc {
			doc[i] = "b"
		}
		counts := map[string]int{}
		for _, w := range m.Apply(rand.New(rand.NewPCG(3, uint64(10*tt))), doc) {
			counts[w]++
		}
		if s := chiSquare(counts, words, lineProbabilities(1, eps, tt), n); s > critical {
			t.Errorf("t = %g: χ² = %.2f > %.2f against the exact distribution (counts %v)", tt, s, critical, counts)
		}
		if s := chiSquare(counts, words, lineProbabilities(1, 1.5*eps, tt), n); s <= critical {
			t.Errorf("t = %g: χ² = %.2f against the distribution at 1.5ε: the test cannot see a mis-scaled ε", tt, s)
		}
	}
}

// TestMahalanobisNoiseIsShapedLaplace checks the elliptical noise: for z = x + r·Σ′^{1/2}u,
// ‖Σ′^{−1/2}(z − x)‖ must be Gamma(n, 1/ε). 3000 draws are compared with it by the one-sample
// Kolmogorov–Smirnov test at a false-failure rate α = 0.001 (critical value 1.949/√3000 =
// 0.0356, as in TestLaplaceRadiusIsGamma); the same draws against Gamma(n, 1/(1.2ε)) (a
// mis-scaled ε) must exceed it. It also checks Σ′^{1/2}·Σ′^{−1/2} = I and that the noise is not
// spherical at λ = 0.9 on a store with one stretched axis.
func TestMahalanobisNoiseIsShapedLaplace(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const dim, draws, eps = 6, 3000, 2.0
	vecs := make([]float32, 400*dim)
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64())
		if i%dim == 0 {
			vecs[i] *= 5 // stretched first axis
		}
	}
	store := fixtures.Store(t, vecs, dim)
	m, err := NewMahalanobis(store, eps, MahalanobisOptions{OOV: OOVKeep, Workers: 1, Lambda: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	e := m.shape
	for a := range dim {
		for b := range dim {
			s := 0.0
			for k := range dim {
				s += e.root[a*dim+k] * e.invRoot[k*dim+b]
			}
			if want := map[bool]float64{true: 1, false: 0}[a == b]; math.Abs(s-want) > 1e-9 {
				t.Fatalf("(Σ′^{1/2}Σ′^{−1/2})[%d][%d] = %g, want %g", a, b, s, want)
			}
		}
	}
	perturb := e.perturbation(eps)
	x := store.Vector(0)
	norms := make([]float64, draws)
	scratch, z := make([]float64, dim), make([]float64, dim)
	var spread [dim]float64
	zero := make([]float32, dim)
	for i := range norms {
		if err := perturb(rng, x, scratch, z); err != nil {
			t.Fatal(err)
		}
		noise := make([]float32, dim)
		for k := range z {
			noise[k] = float32(z[k] - float64(x[k]))
			spread[k] += (z[k] - float64(x[k])) * (z[k] - float64(x[k]))
		}
		norms[i] = e.distance(noise, zero)
	}
	gamma := func(rate float64) func(float64) float64 {
		return distuv.Gamma{Alpha: dim, Beta: rate}.CDF
	}
	const critical = 0.0356
	if d := ksStatistic(norms, gamma(eps)); d > critical {
		t.Errorf("KS distance %.4f > %.4f from Gamma(%d, 1/ε)", d, critical, dim)
	}
	if d := ksStatistic(norms, gamma(1.2*eps)); d <= critical {
		t.Errorf("KS distance %.4f from Gamma(%d, 1/(1.2ε)): the test cannot see a mis-scaled ε", d, dim)
	}
	if !(spread[0] > 2*spread[1]) {
		t.Errorf("noise variance along the stretched axis %.3g, along another %.3g: not elliptical", spread[0]/draws, spread[1]/draws)
	}
}

// TestDecodeMechanismsGolden pins the outputs of cmp, mahalanobis and vickrey (both noises) on a
// random vocabulary, and checks that they do not depend on the number of workers.
func TestDecodeMechanismsGolden(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(6, 6)), 500, 10, 1)
	doc := strings.Fields("w0 w1 w2 w3 w5 w8 w13 w21 w34 w55 w89 w144 w233 w377 oov w1 w1 w1")
	build := map[string]func(eps float64, workers int) (mechanisms.Mechanism, error){
		"cmp": func(eps float64, workers int) (mechanisms.Mechanism, error) {
			return NewCMP(store, eps, CMPOptions{OOV: OOVKeep, Workers: workers})
		},
		"mahalanobis": func(eps float64, workers int) (mechanisms.Mechanism, error) {
			return NewMahalanobis(store, eps, MahalanobisOptions{OOV: OOVDrop, Workers: workers, Lambda: 0.5})
		},
		"vickrey-laplace": func(eps float64, workers int) (mechanisms.Mechanism, error) {
			return NewVickrey(store, eps, VickreyOptions{OOV: OOVKeep, Workers: workers, Noise: VickreyNoiseLaplace, T: 0.5})
		},
		"vickrey-mahalanobis": func(eps float64, workers int) (mechanisms.Mechanism, error) {
			return NewVickrey(store, eps, VickreyOptions{OOV: OOVNearestKnown, Workers: workers, Noise: VickreyNoiseMahalanobis, Lambda: 0.5, T: 0.75})
		},
	}
	var lines []string
	for _, name := range []string{"cmp", "mahalanobis", "vickrey-laplace", "vickrey-mahalanobis"} {
		for _, eps := range []float64{1, 3, 10} {
			first := sameAtAnyWorkers(t, fmt.Sprintf("%s ε=%g", name, eps), []int{1, 3}, func() *rand.Rand { return rngs.New(7, fmt.Sprintf("eps=%g", eps)) }, doc,
				func(workers int) (mechanisms.Mechanism, error) { return build[name](eps, workers) })
			lines = append(lines, fmt.Sprintf("%s eps=%g: %s", name, eps, strings.Join(first, " ")))
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	if want := golden(t, "decode_mechanisms_golden.txt", []byte(got)); got != string(want) {
		t.Errorf("outputs changed:\n%s\nwant:\n%s", got, want)
	}
}

// TestDecodeMechanismsGuaranteesAndValidation checks the metric names and pair distances, and
// that bad options get errors naming the key.
func TestDecodeMechanismsGuaranteesAndValidation(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(8, 8)), 50, 4, 1)
	c, err := NewCMP(store, 2, DefaultCMPOptions())
	if err != nil {
		t.Fatal(err)
	}
	x, y := []string{"w1", "w2"}, []string{"w3", "w2"}
	if g := c.Guarantee(x); g.Metric != mechanisms.MetricPositional || g.Epsilon != 4 {
		t.Errorf("cmp guarantee %+v", g)
	}
	if d, want := c.PairDistance(x, y), linalg.Euclidean(store.Vector(1), store.Vector(3)); math.Abs(d-want) > 1e-12 {
		t.Errorf("cmp pair distance %g, want %g", d, want)
	}
	mh, err := NewMahalanobis(store, 2, DefaultMahalanobisOptions())
	if err != nil {
		t.Fatal(err)
	}
	if g := mh.Guarantee(x); g.Metric != mechanisms.MetricMahalanobis {
		t.Errorf("mahalanobis guarantee %+v", g)
	}
	if d, want := mh.PairDistance(x, y), mh.shape.distance(store.Vector(1), store.Vector(3)); d != want || d == linalg.Euclidean(store.Vector(1), store.Vector(3)) {
		t.Errorf("mahalanobis pair distance %g, want the Mahalanobis norm %g", d, want)
	}
	v, err := NewVickrey(store, 2, VickreyOptions{OOV: OOVKeep, Noise: VickreyNoiseMahalanobis, Lambda: 0.5, T: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if g := v.Guarantee(x); g.Metric != mechanisms.MetricMahalanobis || v.PairDistance(x, y) != mh.PairDistance(x, y) {
		t.Errorf("vickrey over Mahalanobis noise: guarantee %+v, distance %g", g, v.PairDistance(x, y))
	}
	if !math.IsInf(v.PairDistance([]string{"oov1"}, []string{"oov2"}), 1) {
		t.Error("different passed-through words at a finite distance")
	}
	bad := map[string]error{}
	_, bad["lambda"] = NewMahalanobis(store, 2, MahalanobisOptions{OOV: OOVKeep, Lambda: 1.5})
	_, bad["t"] = NewVickrey(store, 2, VickreyOptions{OOV: OOVKeep, Noise: VickreyNoiseLaplace, T: -0.1})
	_, bad["noise"] = NewVickrey(store, 2, VickreyOptions{OOV: OOVKeep, Noise: "gauss", T: 0.5})
	_, bad["epsilon"] = NewCMP(store, 0, DefaultCMPOptions())
	_, bad["oov"] = NewCMP(store, 1, CMPOptions{OOV: "guess"})
	for key, err := range bad {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("bad %s: error %v, want one naming %q", key, err, key)
		}
	}
}

// BenchmarkDecodeMechanismsApply400Words runs the noise-then-decode mechanisms on the vocabulary
// and document of BenchmarkEMDApply400Words, so their throughput can be set beside EMD's.
func BenchmarkDecodeMechanismsApply400Words(b *testing.B) {
	store := fixtures.RandomStore(b, rand.New(rand.NewPCG(1, 2)), 30000, 100, 0.4)
	doc := make([]string, 400)
	for i := range doc {
		doc[i] = store.Word(i * 7)
	}
	build := []struct {
		name string
		make func() (mechanisms.Mechanism, error)
	}{
		{"emd", func() (mechanisms.Mechanism, error) { return NewEMD(store, 10, DefaultEMDOptions()) }},
		{"cmp", func() (mechanisms.Mechanism, error) { return NewCMP(store, 10, DefaultCMPOptions()) }},
		{"mahalanobis", func() (mechanisms.Mechanism, error) { return NewMahalanobis(store, 10, DefaultMahalanobisOptions()) }},
		{"vickrey", func() (mechanisms.Mechanism, error) { return NewVickrey(store, 10, DefaultVickreyOptions()) }},
	}
	for _, c := range build {
		b.Run(c.name, func(b *testing.B) {
			m, err := c.make()
			if err != nil {
				b.Fatal(err)
			}
			rng := rngs.New(1, "bench")
			for b.Loop() {
				m.Apply(rng, doc)
			}
			b.ReportMetric(400*float64(b.N)/b.Elapsed().Seconds(), "words/s")
		})
	}
}
