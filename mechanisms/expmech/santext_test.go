package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/internal/linalg"
	"dptext/mechanisms"
	"dptext/mechanisms/internal/rowcache"
)

// samplingStore is a 40-word, 4-dimensional store with unit-scale normal vectors.
func samplingStore(t testing.TB) *embeddings.Store {
	return fixtures.NormalStore(t, rand.New(rand.NewPCG(11, 13)), fixtures.NumberedWords("w%02d", 40), 4, 1)
}

// exactSampler is a mechanism with an exact per-position distribution.
type exactSampler interface {
	mechanisms.Mechanism
	mechanisms.PairBounder
	LogProbabilities(word string) ([]float64, bool)
}

// samplingChiSquare draws n outputs for word (one document of n copies: positions are
// independent) and returns Pearson's χ² against the distribution lp (bins of expected count
// below 5 pooled) and the critical value at false-failure rate 1e-6.
func samplingChiSquare(t *testing.T, m mechanisms.Mechanism, store *embeddings.Store, word string, lp []float64, n int) (chi2, crit float64) {
	t.Helper()
	doc := make([]string, n)
	for i := range doc {
		doc[i] = word
	}
	counts := map[string]int{}
	for _, w := range m.Apply(rand.New(rand.NewPCG(7, 9)), doc) {
		counts[w]++
	}
	pooledE, pooledC, bins := 0.0, 0, 0
	for r, l := range lp {
		e := math.Exp(l) * float64(n)
		c := counts[store.Word(r)]
		if e < 5 {
			pooledE += e
			pooledC += c
			continue
		}
		chi2 += (float64(c) - e) * (float64(c) - e) / e
		bins++
	}
	if pooledE > 0 {
		chi2 += (float64(pooledC) - pooledE) * (float64(pooledC) - pooledE) / math.Max(pooledE, 1e-300)
		bins++
	}
	crit = distuv.ChiSquared{K: float64(bins - 1)}.Quantile(1 - 1e-6)
	return chi2, crit
}

// checkSampler asserts that the sampler follows its exact distribution at ε (χ², false-failure
// rate 1e-6) and is rejected against the distribution of the same mechanism at 2ε.
func checkSampler(t *testing.T, m, doubled exactSampler, store *embeddings.Store, word string) {
	t.Helper()
	lp, ok := m.LogProbabilities(word)
	if !ok {
		t.Fatalf("no exact distribution for %q", word)
	}
	if chi2, crit := samplingChiSquare(t, m, store, word, lp, 20000); chi2 > crit {
		t.Fatalf("%q: χ² = %.1f > %.1f against the exact distribution", word, chi2, crit)
	}
	lp2, _ := doubled.LogProbabilities(word)
	if chi2, crit := samplingChiSquare(t, m, store, word, lp2, 20000); chi2 <= crit {
		t.Fatalf("%q: χ² = %.1f ≤ %.1f against the distribution at 2ε: the test cannot see a mis-scaled ε", word, chi2, crit)
	}
}

// checkClaim asserts max_y |ln P(y|a) − ln P(y|b)| ≤ ε·D(a, b) for every pair of words, and that
// some pair exceeds ε/4·D (the claim is not vacuous).
func checkClaim(t *testing.T, m exactSampler, store *embeddings.Store) {
	t.Helper()
	eps := m.Epsilon()
	worst := 0.0
	for a := range store.Len() {
		la, _ := m.LogProbabilities(store.Word(a))
		for b := range store.Len() {
			d := m.PairDistance([]string{store.Word(a)}, []string{store.Word(b)})
			if a == b || math.IsInf(d, 1) {
				continue
			}
			lb, _ := m.LogProbabilities(store.Word(b))
			for y := range la {
				if math.IsInf(la[y], -1) && math.IsInf(lb[y], -1) {
					continue
				}
				r := math.Abs(la[y] - lb[y])
				if r > eps*d+1e-9 {
					t.Fatalf("%s vs %s: log-ratio %.4f at %s > ε·D = %.4f", store.Word(a), store.Word(b), r, store.Word(y), eps*d)
				}
				worst = math.Max(worst, r/(eps*d))
			}
		}
	}
	if worst <= 0.25 {
		t.Fatalf("largest log-ratio is %.3f of the claim: a claim 4 times smaller would pass", worst)
	}
}

func TestSanTextMatchesItsFormula(t *testing.T) {
	store := samplingStore(t)
	m, err := NewSanText(store, 2, DefaultSanTextOptions())
	if err != nil {
		t.Fatal(err)
	}
	lp, _ := m.LogProbabilities("w03")
	z := 0.0
	for r := range store.Len() {
		z += math.Exp(-linalg.Euclidean(store.Vector(3), store.Vector(r)))
	}
	for r := range store.Len() {
		want := -linalg.Euclidean(store.Vector(3), store.Vector(r)) - math.Log(z)
		if math.Abs(lp[r]-want) > 1e-12 {
			t.Fatalf("row %d: ln P = %v, want exp(−(ε/2)d)/Z: %v", r, lp[r], want)
		}
	}
}

func TestSanTextSamplerAndClaim(t *testing.T) {
	store := samplingStore(t)
	for _, plus := range []bool{false, true} {
		t.Run(fmt.Sprint("plus=", plus), func(t *testing.T) {
			mk := func(eps float64) *SanText {
				o := DefaultSanTextOptions()
				if plus {
					o = DefaultSanTextPlusOptions()
					o.SensitiveShare = 0.5
				}
				m, err := NewSanText(store, eps, o)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			m, m2 := mk(3), mk(6)
			checkSampler(t, m, m2, store, "w30")
			if plus {
				checkSampler(t, m, m2, store, "w02") // non-sensitive: kept with 1 − p
			}
			checkClaim(t, m, store)
		})
	}
}

func TestSanTextPlusOutputsSensitiveWordsOnly(t *testing.T) {
	store := samplingStore(t)
	o := DefaultSanTextPlusOptions()
	o.SensitiveShare, o.P = 0.25, 1
	m, err := NewSanText(store, 1, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range m.Apply(rand.New(rand.NewPCG(1, 2)), strings.Fields(strings.Repeat("w00 w05 w35 ", 200))) {
		if id, _ := store.Lookup(w); id < 30 {
			t.Fatalf("output %q is not among the 10 least frequent (sensitive) words", w)
		}
	}
}

func TestTEMEqualsItsGumbelAlgorithm(t *testing.T) {
	store := samplingStore(t)
	m, err := NewTEM(store, 4, TEMOptions{Gamma: 2.5, OOV: SampleOOVUniform})
	if err != nil {
		t.Fatal(err)
	}
	lp, _ := m.LogProbabilities("w07")
	// The paper's Algorithm 1: candidates L (score −d) and ⊥ (score −γ + (2/ε)ln|V∖L|) by the
	// exponential mechanism at ε/2; ⊥ then spreads uniformly over V ∖ L.
	eps, gamma := 4.0, 2.5
	weight := map[int]float64{}
	z, outside := 0.0, 0
	for r := range store.Len() {
		if d := linalg.Euclidean(store.Vector(7), store.Vector(r)); d <= gamma {
			weight[r] = math.Exp(-eps / 2 * d)
			z += weight[r]
		} else {
			outside++
		}
	}
	bottom := math.Exp(eps / 2 * (-gamma + 2/eps*math.Log(float64(outside))))
	z += bottom
	if outside == 0 || len(weight) < 2 {
		t.Fatalf("test store: want words on both sides of γ, got %d inside, %d outside", len(weight), outside)
	}
	for r := range store.Len() {
		want := bottom / z / float64(outside)
		if w, ok := weight[r]; ok {
			want = w / z
		}
		if math.Abs(math.Exp(lp[r])-want) > 1e-12 {
			t.Fatalf("row %d: P = %v, Algorithm 1 gives %v", r, math.Exp(lp[r]), want)
		}
	}
	if g := DefaultTEMOptions(); g.Beta != 0.001 {
		t.Fatalf("default β = %v", g.Beta)
	}
	d, _ := NewTEM(store, 2, DefaultTEMOptions())
	if want := math.Log(0.999 * 40 / 0.001); math.Abs(d.Gamma()-want) > 1e-12 {
		t.Fatalf("γ = %v, want (2/ε)ln((1−β)|V|/β) = %v", d.Gamma(), want)
	}
}

func TestTEMSamplerAndClaim(t *testing.T) {
	store := samplingStore(t)
	mk := func(eps float64) *TEM {
		m, err := NewTEM(store, eps, TEMOptions{Gamma: 2.5, OOV: SampleOOVUniform})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := mk(3)
	checkSampler(t, m, mk(6), store, "w12")
	checkClaim(t, m, store)
}

func TestSamplingGolden(t *testing.T) {
	store := samplingStore(t)
	doc := strings.Fields("w00 w01 w02 w03 w04 w05 w06 w07 w08 w09 w30 w31 w39 unknown")
	san, _ := NewSanText(store, 4, DefaultSanTextOptions())
	plus, _ := NewSanText(store, 4, DefaultSanTextPlusOptions())
	tem, _ := NewTEM(store, 4, TEMOptions{Gamma: 2.5, OOV: SampleOOVUniform})
	cus, _ := NewCusText(store, 4, CusTextOptions{K: 5, OOV: SampleOOVUniform}, nil)
	var b strings.Builder
	for _, c := range []struct {
		name string
		m    mechanisms.Mechanism
	}{{"santext", san}, {"santext+", plus}, {"tem", tem}, {"custext", cus}} {
		fmt.Fprintf(&b, "%s: %s\n", c.name, strings.Join(c.m.Apply(rand.New(rand.NewPCG(1, 1)), doc), " "))
	}
	if want := golden(t, "sampling_golden.txt", []byte(b.String())); b.String() != string(want) {
		t.Fatalf("outputs changed:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestRatingsBatchIsBitIdentical checks that the four-row distance pass gives exactly the
// single-row ratings (all outputs, restricted outputs, truncation at γ), for batches that are and
// are not multiples of four, with the assembly kernel and with the Go loop.
func TestRatingsBatchIsBitIdentical(t *testing.T) {
	store := fixtures.NormalStore(t, rand.New(rand.NewPCG(5, 8)), fixtures.NumberedWords("v%03d", 300), 37, 1)
	for _, e := range []*distanceEM{
		{store: store, epsilon: 3, gamma: math.Inf(1), cache: rowcache.New(0)},
		{store: store, epsilon: 3, gamma: 8.5, cache: rowcache.New(0)},
		{store: store, epsilon: 3, gamma: math.Inf(1), outputs: []int{2, 3, 50, 99, 298}, cache: rowcache.New(0)},
	} {
		xs := []int{7, 0, 299, 7, 150, 33, 12, 5, 81, 44, 3}
		got := e.ratingsBatch(xs)
		saved := linalg.SetAssembly(false)
		goOnly := e.ratingsBatch(xs)
		linalg.SetAssembly(saved)
		for k, x := range xs {
			want := e.ratings(x)
			for j := range want {
				if math.Float64bits(got[k][j]) != math.Float64bits(want[j]) || math.Float64bits(goOnly[k][j]) != math.Float64bits(want[j]) {
					t.Fatalf("row %d, output %d: batch %v (Go loop %v), single %v", x, j, got[k][j], goOnly[k][j], want[j])
				}
			}
		}
	}
}
