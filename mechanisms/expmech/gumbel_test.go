package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"dptext/internal/linalg"
)

func TestLambertW0(t *testing.T) {
	for _, x := range []float64{0, 1e-9, 0.3, 1, math.E, 10, 61.5, 1e6} {
		w := lambertW0(x)
		if got := w * math.Exp(w); math.Abs(got-x) > 1e-12*math.Max(1, x) {
			t.Fatalf("W(%v) = %v: w·e^w = %v", x, w, got)
		}
	}
	if w := lambertW0(math.E); math.Abs(w-1) > 1e-15 {
		t.Fatalf("W(e) = %v, want 1", w)
	}
}

func TestTruncatedGumbelScale(t *testing.T) {
	// n = 1000, Δ_min = 0.5, Δ_max = 8, ε = 60: a = (60 − 2(1+ln 1000)/0.5)/3, and
	// b = 16/min(W(16a), ln(a/2)).
	a, b, err := TruncatedGumbelScale(60, 1000, 0.5, 8)
	if err != nil {
		t.Fatal(err)
	}
	wantA := (60 - 4*(1+math.Log(1000))) / 3
	w := lambertW0(16 * wantA)
	wantB := 16 / math.Min(w, math.Log(wantA/2))
	if math.Abs(a-wantA) > 1e-12 || math.Abs(b-wantB) > 1e-12 {
		t.Fatalf("a, b = %v, %v; want %v, %v", a, b, wantA, wantB)
	}
	minEps := TruncatedGumbelMinEpsilon(1000, 0.5)
	if _, _, err := TruncatedGumbelScale(minEps, 1000, 0.5, 8); err == nil {
		t.Fatalf("ε at the minimum %v accepted", minEps)
	} else if !strings.Contains(err.Error(), "want ε >") {
		t.Fatalf("error does not name the valid range: %v", err)
	}
	if _, _, err := TruncatedGumbelScale(minEps*1.0001, 1000, 0.5, 8); err != nil {
		t.Fatalf("ε just above the minimum rejected: %v", err)
	}
}

func TestTruncatedGumbelDeltaRangeIsExact(t *testing.T) {
	store := samplingStore(t)
	dmin, dmax, err := vocabularyDistanceRange(store)
	if err != nil {
		t.Fatal(err)
	}
	wantMin, wantMax := math.Inf(1), 0.0
	for i := 0; i < store.Len(); i++ {
		for j := i + 1; j < store.Len(); j++ {
			d := linalg.Euclidean(store.Vector(i), store.Vector(j))
			wantMin, wantMax = math.Min(wantMin, d), math.Max(wantMax, d)
		}
	}
	if dmin != wantMin || dmax != wantMax {
		t.Fatalf("Δ = [%v, %v], brute force [%v, %v]", dmin, dmax, wantMin, wantMax)
	}
}

// truncGumbelCDF is P(G ≤ g) for G ~ Gumbel(0, b) conditioned on |G| ≤ c.
func truncGumbelCDF(g, b, c float64) float64 {
	F := func(x float64) float64 { return math.Exp(-math.Exp(-x / b)) }
	switch {
	case g <= -c:
		return 0
	case g >= c:
		return 1
	}
	return (F(g) - F(-c)) / (F(c) - F(-c))
}

// gumbelExactLogProbabilities computes ln P(y | x) of the mechanism by quadrature: the winner
// among the k nearest has probability ∫ f(g) Π_{j≠i} (1 − F(d_i + g − d_j)) dg (Simpson's rule
// on the truncated support), mixed over the truncated Poisson law of k.
func gumbelExactLogProbabilities(m *TruncatedGumbel, word string) []float64 {
	n := m.store.Len()
	x, _ := m.store.Lookup(word)
	rows, dists := m.neighbours(x, n, nil)
	b, c := m.b, m.deltaMax
	const grid = 2000 // even
	h := 2 * c / grid
	dens := make([]float64, grid+1)
	norm := math.Exp(-math.Exp(-c/b)) - math.Exp(-math.Exp(c/b))
	for s := range dens {
		g := -c + float64(s)*h
		z := g / b
		dens[s] = math.Exp(-z-math.Exp(-z)) / b / norm
	}
	// Poisson(μ) truncated to k ≤ n−1.
	pk := make([]float64, n)
	tot := 0.0
	for k := range pk {
		lg, _ := math.Lgamma(float64(k) + 1)
		pk[k] = math.Exp(float64(k)*math.Log(m.mu) - m.mu - lg)
		tot += pk[k]
	}
	p := make([]float64, n)
	p[x] += pk[0] / tot
	for k := 1; k < n; k++ {
		for i := 0; i < k; i++ {
			integral := 0.0
			for s, f := range dens {
				g := -c + float64(s)*h
				prod := f
				for j := 0; j < k && prod > 0; j++ {
					if j != i {
						prod *= 1 - truncGumbelCDF(dists[i]+g-dists[j], b, c)
					}
				}
				wgt := 2.0
				switch {
				case s == 0 || s == grid:
					wgt = 1
				case s%2 == 1:
					wgt = 4
				}
				integral += wgt * prod
			}
			p[rows[i]] += pk[k] / tot * integral * h / 3
		}
	}
	out := make([]float64, n)
	for r := range out {
		out[r] = math.Log(p[r])
	}
	return out
}

func TestTruncatedGumbelNoiseSampler(t *testing.T) {
	// Kolmogorov–Smirnov against the truncated CDF; false-failure rate 1e-6 (critical value
	// √(ln(2/α)/2)/√n).
	rng := rand.New(rand.NewPCG(3, 5))
	const n = 20000
	b, c := 1.3, 2.0
	draws := make([]float64, n)
	for i := range draws {
		draws[i] = truncatedGumbel(rng, b, c)
	}
	ks := func(b float64) float64 {
		sorted := append([]float64(nil), draws...)
		sort.Float64s(sorted)
		worst := 0.0
		for i, g := range sorted {
			F := truncGumbelCDF(g, b, c)
			worst = math.Max(worst, math.Max(math.Abs(F-float64(i)/n), math.Abs(F-float64(i+1)/n)))
		}
		return worst
	}
	crit := math.Sqrt(math.Log(2/1e-6)/2) / math.Sqrt(n)
	if d := ks(b); d > crit {
		t.Fatalf("KS = %v > %v against the truncated Gumbel(0, %v)", d, crit, b)
	}
	if d := ks(b / 2); d <= crit {
		t.Fatalf("KS = %v ≤ %v against scale b/2: the test cannot see a mis-scaled noise", d, crit)
	}
}

// TestTruncatedGumbelSamplerMatchesQuadrature checks the whole sampler (k, candidates, noise,
// argmin) against its output distribution computed by quadrature (χ², false-failure rate 1e-6),
// and that the same samples reject the distribution of ε/4: a mis-scaled ε changes b and thereby
// the winning probabilities. Near the minimum ε the scale exceeds Δ_max and every ε gives almost
// uniform winners, hence ε = 40× the minimum here.
func TestTruncatedGumbelSamplerMatchesQuadrature(t *testing.T) {
	store := samplingStore(t)
	dmin, _, err := vocabularyDistanceRange(store)
	if err != nil {
		t.Fatal(err)
	}
	minEps := TruncatedGumbelMinEpsilon(store.Len(), dmin)
	mk := func(eps float64) *TruncatedGumbel {
		m, err := NewTruncatedGumbel(store, eps, DefaultTruncatedGumbelOptions())
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m, wide := mk(40*minEps), mk(10*minEps)
	lp := gumbelExactLogProbabilities(m, "w12")
	if chi2, crit := samplingChiSquare(t, m, store, "w12", lp, 20000); chi2 > crit {
		t.Fatalf("χ² = %.1f > %.1f against the quadrature distribution (b = %v)", chi2, crit, m.Scale())
	}
	lpWide := gumbelExactLogProbabilities(wide, "w12")
	if chi2, crit := samplingChiSquare(t, m, store, "w12", lpWide, 20000); chi2 <= crit {
		t.Fatalf("χ² = %.1f ≤ %.1f against the distribution at ε/4: the test cannot see a mis-scaled ε", chi2, crit)
	}
}

// The acceptance probability of a truncated Gumbel draw: 0 at t = 0, about 0.31 at t = 1 (the
// closed form e^(−1/e) − e^(−e)), and the scale refuses a calibration whose draws would be
// accepted below minGumbelAcceptance (ε just above its minimum makes ln(aΔ_min) tiny).
func TestTruncatedGumbelAcceptanceIsBounded(t *testing.T) {
	if p := gumbelAcceptance(1); math.Abs(p-(math.Exp(-1/math.E)-math.Exp(-math.E))) > 1e-15 || gumbelAcceptance(0) != 0 {
		t.Fatalf("acceptance(1) = %v, acceptance(0) = %v", p, gumbelAcceptance(0))
	}
	n, dmin := 1000, 0.5
	eps := TruncatedGumbelMinEpsilon(n, dmin) * (1 + 1e-9)
	if _, _, err := TruncatedGumbelScale(eps, n, dmin, 10); err == nil || !strings.Contains(err.Error(), "would not end") {
		t.Fatalf("ε just above the minimum: %v", err)
	}
	if _, _, err := TruncatedGumbelScale(2*TruncatedGumbelMinEpsilon(n, dmin), n, dmin, 10); err != nil {
		t.Fatalf("twice the minimum ε: %v", err)
	}
}

func TestTruncatedGumbelRejectsBadInput(t *testing.T) {
	store := samplingStore(t)
	for _, c := range []struct {
		eps  float64
		opts TruncatedGumbelOptions
		want string
	}{
		{1, DefaultTruncatedGumbelOptions(), "want ε >"},
		{math.NaN(), DefaultTruncatedGumbelOptions(), "want a finite value"},
		{1000, TruncatedGumbelOptions{OOV: "drop"}, "oov"},
		{1000, TruncatedGumbelOptions{OOV: SampleOOVUniform, DeltaMin: -1}, "delta_min"},
		{1000, TruncatedGumbelOptions{OOV: SampleOOVUniform, DeltaMin: 5, DeltaMax: 1}, "delta_min = 5 > delta_max"},
		// Δ_max = 1e308 made b overflow to +Inf: no draw was ever accepted and a cell never ended.
		{1000, TruncatedGumbelOptions{OOV: SampleOOVUniform, DeltaMax: 1e308}, "not a finite value > 0"},
	} {
		if _, err := NewTruncatedGumbel(store, c.eps, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("ε = %v, %+v: err = %v, want it to mention %q", c.eps, c.opts, err, c.want)
		}
	}
}

func TestTruncatedGumbelGolden(t *testing.T) {
	store := samplingStore(t)
	doc := strings.Fields("w00 w01 w02 w03 w04 w05 w06 w07 w08 w09 w30 w31 w39 unknown")
	var b strings.Builder
	for _, eps := range []float64{60, 200} {
		m, err := NewTruncatedGumbel(store, eps, DefaultTruncatedGumbelOptions())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "ε=%v b=%.6g: %s\n", eps, m.Scale(), strings.Join(m.Apply(rand.New(rand.NewPCG(1, 1)), doc), " "))
	}
	if want := golden(t, "gumbel_golden.txt", []byte(b.String())); b.String() != string(want) {
		t.Fatalf("outputs changed:\n%s\nwant:\n%s", b.String(), want)
	}
}
