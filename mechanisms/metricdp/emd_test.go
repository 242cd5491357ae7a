package metricdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// ksStatistic returns the Kolmogorov–Smirnov distance between the sample and a CDF.
func ksStatistic(sample []float64, cdf func(float64) float64) float64 {
	x := slices.Clone(sample)
	sort.Float64s(x)
	n := float64(len(x))
	d := 0.0
	for i, v := range x {
		f := cdf(v)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

// TestLaplaceRadiusIsGamma compares 3000 radii with Gamma(shape n, rate ε) by the one-sample
// Kolmogorov–Smirnov test. Critical value for a false-failure rate α = 0.001 per case: the
// asymptotic c(α)/√N with c(α) = √(−ln(α/2)/2) = 1.949 (Smirnov 1948), i.e. 0.0356 for N = 3000.
// The test fails when the scale is swapped: against rate 1/ε (scale ε) the distance is close to
// 1, far above the critical value, which the second assertion checks.
func TestLaplaceRadiusIsGamma(t *testing.T) {
	const samples = 3000
	critical := math.Sqrt(-math.Log(0.001/2)/2) / math.Sqrt(samples)
	rng := rngs.New(1, "radius")
	for _, c := range []struct {
		n   int
		eps float64
	}{{1, 2}, {2, 0.5}, {100, 10}, {300, 30}} {
		radii := make([]float64, samples)
		for i := range radii {
			radii[i] = LaplaceRadius(rng, c.n, c.eps)
		}
		right := distuv.Gamma{Alpha: float64(c.n), Beta: c.eps}
		if d := ksStatistic(radii, right.CDF); d > critical {
			t.Errorf("n=%d ε=%g: KS distance %.4f to Gamma(n, rate ε) exceeds %.4f", c.n, c.eps, d, critical)
		}
		if c.eps == 1 {
			continue // swapping is a no-op
		}
		swapped := distuv.Gamma{Alpha: float64(c.n), Beta: 1 / c.eps}
		if d := ksStatistic(radii, swapped.CDF); d <= critical {
			t.Errorf("n=%d ε=%g: KS test cannot tell rate from scale (distance %.4f)", c.n, c.eps, d)
		}
	}
}

// TestSphereDirectionIsUniform checks unit norms exactly (to rounding) and the first two
// moments of 4000 directions in 10 dimensions. For a uniform direction E[u_i] = 0 with variance
// 1/n, and E[u_i²] = 1/n with variance (2n−2)/(n²(n+2)); the sample means must lie within 5
// standard errors (false-failure rate below 1e-5 over all 20 checks, normal approximation).
func TestSphereDirectionIsUniform(t *testing.T) {
	const n, samples = 10, 4000
	rng := rngs.New(2, "direction")
	mean, meanSq := make([]float64, n), make([]float64, n)
	u := make([]float64, n)
	for range samples {
		SphereDirection(rng, u)
		norm := 0.0
		for i, x := range u {
			norm += x * x
			mean[i] += x / samples
			meanSq[i] += x * x / samples
		}
		if math.Abs(norm-1) > 1e-12 {
			t.Fatalf("direction of squared norm %v", norm)
		}
	}
	seMean := math.Sqrt(1.0 / n / samples)
	seSq := math.Sqrt((2.0*n - 2) / (n * n * (n + 2)) / samples)
	for i := range n {
		if math.Abs(mean[i]) > 5*seMean {
			t.Errorf("coordinate %d: mean %.4f, want |·| ≤ %.4f", i, mean[i], 5*seMean)
		}
		if math.Abs(meanSq[i]-1.0/n) > 5*seSq {
			t.Errorf("coordinate %d: mean square %.4f, want 1/n = %.2f ± %.4f", i, meanSq[i], 1.0/n, 5*seSq)
		}
	}
}

// outputCounts applies m to a document of `samples` copies of word and counts the outputs.
func outputCounts(t *testing.T, m *EMD, rng *rand.Rand, word string, samples int) map[string]int {
	doc := make([]string, samples)
	for i := range doc {
		doc[i] = word
	}
	counts := map[string]int{}
	for _, w := range m.Apply(rng, doc) {
		counts[w]++
	}
	return counts
}

// ratioViolations returns the outputs whose frequency ratio P(o|a)/P(o|b) provably exceeds
// bound: for every output seen at least 300 times from both words, the lower confidence limit
// (p̂_a − 4·se_a)/(p̂_b + 4·se_b) (binomial standard errors, normal approximation) is compared
// with the bound. Each comparison falsely fails with probability below 2·3.2e-5, so with the
// ≤ 100 outputs compared the false-failure rate is below 0.007.
func ratioViolations(ca, cb map[string]int, samples int, bound float64) []string {
	var bad []string
	for o, na := range ca {
		nb := cb[o]
		if na < 300 || nb < 300 {
			continue
		}
		pa, pb := float64(na)/float64(samples), float64(nb)/float64(samples)
		sa, sb := math.Sqrt(pa*(1-pa)/float64(samples)), math.Sqrt(pb*(1-pb)/float64(samples))
		if lower := (pa - 4*sa) / (pb + 4*sb); lower > bound {
			bad = append(bad, fmt.Sprintf("%s: %d vs %d (ratio ≥ %.2f > %.2f)", o, na, nb, lower, bound))
		}
	}
	sort.Strings(bad)
	return bad
}

// TestEMDRespectsMetricBound checks P(o | a) ≤ exp(ε·d(a, b))·P(o | b) in both directions for
// two neighbouring grid words a, b at distance 1, and that the same check catches a mechanism
// with three times the ε (whose ratios reach exp(3ε)).
func TestEMDRespectsMetricBound(t *testing.T) {
	const samples, eps = 40000, 1.5
	store := fixtures.Grid(t, 7)
	rng := rngs.New(3, "metric-bound")
	m, err := NewEMD(store, eps, DefaultEMDOptions())
	if err != nil {
		t.Fatal(err)
	}
	a, b := "g3_3", "g4_3"
	ca, cb := outputCounts(t, m, rng, a, samples), outputCounts(t, m, rng, b, samples)
	bound := math.Exp(eps * 1)
	if bad := append(ratioViolations(ca, cb, samples, bound), ratioViolations(cb, ca, samples, bound)...); len(bad) > 0 {
		t.Errorf("ε·d bound violated: %v", bad)
	}
	loose, err := NewEMD(store, 3*eps, DefaultEMDOptions())
	if err != nil {
		t.Fatal(err)
	}
	la, lb := outputCounts(t, loose, rng, a, samples), outputCounts(t, loose, rng, b, samples)
	if len(ratioViolations(la, lb, samples, bound)) == 0 {
		t.Error("the frequency check does not detect a mechanism with 3ε")
	}
}

func TestNewEMDValidatesOptions(t *testing.T) {
	store := fixtures.Grid(t, 3)
	cases := []struct {
		eps  float64
		opts EMDOptions
		want string
	}{
		{0, DefaultEMDOptions(), "epsilon = 0"},
		{math.Inf(1), DefaultEMDOptions(), "epsilon = +Inf"},
		{1, EMDOptions{OOV: "skip"}, `emd: oov = "skip": want "keep", "drop" or "nearest-known"`},
		{1, EMDOptions{OOV: OOVKeep, TopK: -1}, "top_k = -1"},
		{1, EMDOptions{OOV: OOVKeep, Workers: -2}, "workers = -2"},
	}
	for _, c := range cases {
		_, err := NewEMD(store, c.eps, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ε=%g %+v: error %v, want one containing %q", c.eps, c.opts, err, c.want)
		}
	}
	if _, err := NewEMD(nil, 1, DefaultEMDOptions()); err == nil {
		t.Error("nil store accepted")
	}
	m, err := NewEMD(store, 2, EMDOptions{OOV: OOVKeep, TopK: 4})
	if err != nil {
		t.Fatal(err)
	}
	if m.Store().Len() != 4 {
		t.Errorf("top_k = 4 left %d words", m.Store().Len())
	}
}

func TestEMDOOVPoliciesAndDiagnose(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(4, 4)), 200, 5, 1)
	doc := []string{"w1", "snape", "w2", "w12x", "w3"}
	for _, c := range []struct {
		oov  string
		want []string
		diag map[string]float64
	}{
		{OOVKeep, []string{"w1", "snape", "w2", "w12x", "w3"},
			map[string]float64{"oov_tokens": 2, "oov_kept": 2}},
		{OOVDrop, []string{"w1", "w2", "w3"},
			map[string]float64{"oov_tokens": 2, "oov_dropped": 2}},
		// "snape" is 4 edits from every 2–3 character word; the first such row is w0. "w12x" is
		// one substitution from w12 (row 12) and from w120…w129: the lowest row wins.
		{OOVNearestKnown, []string{"w1", "w0", "w2", "w12", "w3"},
			map[string]float64{"oov_tokens": 2, "oov_replaced": 2}},
	} {
		m, err := NewEMD(store, 1e9, EMDOptions{OOV: c.oov, Workers: 1}) // ε so large nothing moves
		if err != nil {
			t.Fatal(err)
		}
		got := m.Apply(rngs.New(5, c.oov), doc)
		if !slices.Equal(got, c.want) {
			t.Errorf("oov = %q: output %v, want %v", c.oov, got, c.want)
		}
		diag := m.Diagnose(doc, got)
		c.diag["unchanged_share"], c.diag["mean_cosine"] = 1, 1
		if len(diag) != len(c.diag) {
			t.Errorf("oov = %q: Diagnose = %v, want the keys of %v", c.oov, diag, c.diag)
		}
		for k, v := range c.diag {
			if diag[k] != v {
				t.Errorf("oov = %q: Diagnose[%q] = %v, want %v", c.oov, k, diag[k], v)
			}
		}
		if g := m.Guarantee(doc); g.Kind != mechanisms.KindMetric || g.Epsilon != 5e9 || g.Metric != mechanisms.MetricPositional {
			t.Errorf("guarantee %+v, want metric εN = 5e9 over the positional distance (order keep)", g)
		}
	}
}

// sameAtAnyWorkers builds the mechanism with each number of workers, applies it to doc with a
// fresh generator from newRNG each time, fails unless every output is the same, and returns it.
func sameAtAnyWorkers(t *testing.T, label string, workers []int, newRNG func() *rand.Rand, doc []string, build func(workers int) (mechanisms.Mechanism, error)) []string {
	t.Helper()
	var first []string
	for _, w := range workers {
		m, err := build(w)
		if err != nil {
			t.Fatal(err)
		}
		out := m.Apply(newRNG(), doc)
		if first == nil {
			first = out
		} else if !slices.Equal(out, first) {
			t.Fatalf("%s: %d workers give %v, %d worker(s) %v", label, w, out, workers[0], first)
		}
	}
	return first
}

// TestEMDGolden pins the outputs for a fixed seed; `go test ./mechanisms/metricdp -update` rewrites
// testdata/emd_golden.txt (and a change must bump the mechanism's registry version). The outputs
// do not depend on the number of workers.
func TestEMDGolden(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(6, 6)), 500, 10, 1)
	doc := strings.Fields("w0 w1 w2 w3 w5 w8 w13 w21 w34 w55 w89 w144 w233 w377 oov w1 w1 w1")
	var lines []string
	for _, eps := range []float64{1, 3, 10} {
		for _, policy := range []string{OOVKeep, OOVDrop, OOVNearestKnown} {
			first := sameAtAnyWorkers(t, fmt.Sprintf("ε=%g %s", eps, policy), []int{1, 2, 3}, func() *rand.Rand { return rngs.New(7, fmt.Sprintf("eps=%g", eps)) }, doc,
				func(workers int) (mechanisms.Mechanism, error) {
					return NewEMD(store, eps, EMDOptions{OOV: policy, Workers: workers})
				})
			lines = append(lines, fmt.Sprintf("eps=%g oov=%s: %s", eps, policy, strings.Join(first, " ")))
		}
	}
	for _, eps := range []float64{3, 10} {
		m, err := NewEMD(store, eps, EMDOptions{OOV: OOVKeep, Workers: 2, Order: mechanisms.OrderBag})
		if err != nil {
			t.Fatal(err)
		}
		out := m.Apply(rngs.New(7, fmt.Sprintf("eps=%g", eps)), doc)
		lines = append(lines, fmt.Sprintf("eps=%g oov=keep order=bag: %s", eps, strings.Join(out, " ")))
	}
	got := strings.Join(lines, "\n") + "\n"
	if want := golden(t, "emd_golden.txt", []byte(got)); got != string(want) {
		t.Errorf("outputs changed:\n%s\nwant:\n%s", got, want)
	}
}

func TestBagDistance(t *testing.T) {
	store := fixtures.Grid(t, 4)
	// Matching g0_0→g0_1 (1) and g3_0→g3_3 (3) beats the crossing pairs (√10 + √18).
	d, err := BagDistance(store, []string{"g0_0", "g3_0"}, []string{"g3_3", "g0_1"})
	if err != nil || math.Abs(d-2) > 1e-12 {
		t.Errorf("distance %v (%v), want (1+3)/2", d, err)
	}
	if d, _ := BagDistance(store, []string{"g1_1", "snape"}, []string{"snape", "g1_2"}); math.Abs(d-0.5) > 1e-12 {
		t.Errorf("shared OOV word: distance %v, want 0.5", d)
	}
	if d, _ := BagDistance(store, []string{"g1_1", "snape"}, []string{"harry", "g1_1"}); !math.IsInf(d, 1) {
		t.Errorf("different OOV words: distance %v, want +Inf", d)
	}
	if d, _ := BagDistance(store, []string{"snape", "snape"}, []string{"snape", "g0_0"}); !math.IsInf(d, 1) {
		t.Errorf("OOV multiplicities differ: distance %v, want +Inf", d)
	}
	if _, err := BagDistance(store, []string{"g0_0"}, nil); err == nil {
		t.Error("bags of different sizes accepted")
	}
	if d, err := BagDistance(store, nil, nil); d != 0 || err != nil {
		t.Errorf("empty bags: %v, %v", d, err)
	}
}

func BenchmarkEMDApply400Words(b *testing.B) {
	store := fixtures.RandomStore(b, rand.New(rand.NewPCG(1, 2)), 30000, 100, 0.4)
	m, err := NewEMD(store, 10, DefaultEMDOptions())
	if err != nil {
		b.Fatal(err)
	}
	doc := make([]string, 400)
	for i := range doc {
		doc[i] = store.Word(i * 7)
	}
	rng := rngs.New(1, "bench")
	for b.Loop() {
		m.Apply(rng, doc)
	}
}
