package metricdp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/linalg"
	"dptext/internal/rngs"
	"dptext/internal/transport"
	"dptext/mechanisms"
)

// diagnoseBagReference is diagnoseBag as it was before issue 38 (outputs in released order, a
// cosine per pair of tokens), with today's transport.Match as its matching (the matching's own
// gain is transport's BenchmarkMatchAgainstReference): the baseline
// TestDiagnoseBagEqualsReference holds diagnoseBag to and BenchmarkDiagnoseBagAgainstReference
// measures it against in the same process.
func diagnoseBagReference(m *EMD, original, private []string) (oov, inVocab, unchanged int, cosSum float64) {
	in, out, oov, unchanged := m.bagRows(original, private)
	inVocab = len(in)
	// Maximum total cosine = minimum total (1 − cos); unequal sizes are padded with dummy rows
	// or columns of cost 0 that contribute no cosine.
	n := max(len(in), len(out))
	if n == 0 {
		return oov, inVocab, unchanged, 0
	}
	cost := make([]float64, n*n)
	cosines := make([]float64, n*n)
	for i, ri := range in {
		for j, ro := range out {
			c := linalg.Cosine(m.store.Vector(ri), m.store.Vector(ro))
			cosines[i*n+j], cost[i*n+j] = c, 1-c
		}
	}
	_, assign := transport.Match(cost, n)
	for i := range in {
		cosSum += cosines[i*n+assign[i]]
	}
	return oov, inVocab, unchanged, cosSum
}

// diagnoseFixture is an EMD over 30,000 random 100-d words and a 430-word snippet whose words
// repeat as a text's do (frequent words often), with its release at ε (order "bag").
func diagnoseFixture(tb testing.TB, eps float64) (*EMD, []string, []string) {
	rng := rand.New(rand.NewPCG(38, 3))
	store := fixtures.RandomStore(tb, rng, 30000, 100, 0.4)
	m, err := NewEMD(store, eps, EMDOptions{OOV: OOVKeep, Workers: 1, Order: mechanisms.OrderBag})
	if err != nil {
		tb.Fatal(err)
	}
	doc := make([]string, 430)
	for i := range doc {
		doc[i] = store.Word(int(math.Min(29999, rng.ExpFloat64()*300)))
	}
	doc[7], doc[200] = "unknown", "unknown"
	return m, doc, m.Apply(rngs.New(38, "diagnose"), doc)
}

// byRow returns the words of private in ascending row order of the store (out-of-vocabulary
// words last): the order diagnoseBag reads the outputs in.
func byRow(m *EMD, private []string) []string {
	out := slices.Clone(private)
	rank := func(w string) int {
		if r, ok := m.store.Lookup(w); ok {
			return r
		}
		return math.MaxInt
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// diagnoseBag gives what the reference gives for the same release read in row order (the counts
// exactly, the cosine sum to 1e-12 per word: both matchings are optimal, their sums may round
// differently), and, bit for bit, the same whatever order the release is in (the figures are
// of the bag). Mutants caught: a cosine table indexed by the wrong distinct word (cosine sums
// differ), outputs not sorted (the shuffled release then differs from the sorted one in the
// last bits or more).
func TestDiagnoseBagEqualsReference(t *testing.T) {
	for _, eps := range []float64{30, 10, 3} {
		m, doc, private := diagnoseFixture(t, eps)
		bagCosines.mu.Lock()
		bagCosines.sums = nil // computed, not memoised by an earlier test
		bagCosines.mu.Unlock()
		a, b, c, d := m.diagnoseBag(doc, private)
		wa, wb, wc, wd := diagnoseBagReference(m, doc, byRow(m, private))
		if a != wa || b != wb || c != wc || math.Abs(d-wd) > 1e-12*float64(wb) {
			t.Fatalf("ε = %g: diagnoseBag %d %d %d %v, reference in row order %d %d %d %v", eps, a, b, c, d, wa, wb, wc, wd)
		}
		shuffled := slices.Clone(private)
		rand.New(rand.NewPCG(1, 1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if _, _, _, d2 := m.diagnoseBag(doc, shuffled); math.Float64bits(d2) != math.Float64bits(d) {
			t.Fatalf("ε = %g: the cosine sum depends on the release order: %v vs %v", eps, d2, d)
		}
		if eps == 10 && (c == b || c == 0) {
			t.Fatalf("ε = 10: %d of %d words unchanged: the fixture should change some words and keep others", c, b)
		}
	}
}

// BenchmarkDiagnoseBagAgainstReference times the bag diagnostics of one 430-word snippet at
// ε = 10 (about half of the words changed) against the reference, in the same process: a
// regression shows as the ratio reference/new falling towards 1.
func BenchmarkDiagnoseBagAgainstReference(b *testing.B) {
	m, doc, private := diagnoseFixture(b, 10)
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			bagCosines.mu.Lock()
			bagCosines.sums = nil // every iteration computes, as the first of a group does
			bagCosines.mu.Unlock()
			m.diagnoseBag(doc, private)
		}
	})
	// The second release of a group sharing draws (emd-drop after emd) finds the figure.
	b.Run("shared", func(b *testing.B) {
		m.diagnoseBag(doc, private)
		for b.Loop() {
			m.diagnoseBag(doc, private)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			diagnoseBagReference(m, doc, private)
		}
	})
}

// randomRows draws n rows below size, with repeats.
func randomRows(rng *rand.Rand, n, size int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = rng.IntN(size)
	}
	return rows
}

// cosineTable equals linalg.Cosine bit for bit on every pair, zero vectors included, with the
// assembly dot products and without, over lists long enough for several groups of sixteen and
// a remainder. Mutant caught: a squared norm summed in float32 (last bits differ on most
// pairs).
func TestCosineTableEqualsCosine(t *testing.T) {
	vecs := make([]float32, 0, 40*7)
	rng := rand.New(rand.NewPCG(38, 4))
	for i := range 40 * 7 {
		v := float32(rng.NormFloat64())
		if i < 7 {
			v = 0 // row 0 is the zero vector
		}
		vecs = append(vecs, v)
	}
	store := fixtures.Store(t, vecs, 7)
	for _, assembly := range []bool{true, false} {
		saved := linalg.SetAssembly(assembly)
		for _, ab := range [][2][]int{{{0, 3, 5, 39, 3}, {1, 0, 2, 38, 17, 5}}, {randomRows(rng, 23, 40), randomRows(rng, 37, 40)}} {
			a, b := ab[0], ab[1]
			got := cosineTable(store, a, b)
			for i, ra := range a {
				for j, rb := range b {
					want := linalg.Cosine(store.Vector(ra), store.Vector(rb))
					if math.Float64bits(got[i*len(b)+j]) != math.Float64bits(want) {
						linalg.SetAssembly(saved)
						t.Fatalf("assembly %v: rows %d, %d: %v, linalg.Cosine %v", assembly, ra, rb, got[i*len(b)+j], want)
					}
				}
			}
		}
		linalg.SetAssembly(saved)
	}
}

// euclideanCosts gives every pair of rows, repeated ones included, linalg.Euclidean's distance
// bit for bit, with the assembly kernel and without, over lists with several blocks of four
// distinct rows and a remainder. Mutant caught: indexing the distinct table by position instead
// of by distinct row (wrong distances wherever a row repeats).
func TestEuclideanCostsEqualEuclidean(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 5))
	store := fixtures.RandomStore(t, rng, 50, 6, 1)
	for _, assembly := range []bool{true, false} {
		saved := linalg.SetAssembly(assembly)
		for _, ab := range [][2][]int{{{4, 4, 9, 1, 9, 30}, {9, 2, 2, 4, 49, 1}}, {randomRows(rng, 31, 50), randomRows(rng, 26, 50)}} {
			a, b := ab[0], ab[1]
			got := euclideanCosts(store, a, b)
			for i, ra := range a {
				for j, rb := range b {
					if want := linalg.Euclidean(store.Vector(ra), store.Vector(rb)); math.Float64bits(got[i*len(b)+j]) != math.Float64bits(want) {
						linalg.SetAssembly(saved)
						t.Fatalf("assembly %v: rows %d, %d: %v, linalg.Euclidean %v", assembly, ra, rb, got[i*len(b)+j], want)
					}
				}
			}
		}
		linalg.SetAssembly(saved)
	}
}
