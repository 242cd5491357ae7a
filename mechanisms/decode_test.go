package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"dptext/embeddings"
)

// randomStore returns a store of n words w0, w1, … with standard normal vectors of dimension
// dim, scaled.
func randomStore(tb testing.TB, rng *rand.Rand, n, dim int, scale float64) *embeddings.Store {
	tb.Helper()
	return mustNormalStore(tb, rng, numberedWords("w%d", n), dim, scale)
}

// mustNormalStore is normalStore, failing tb on an error.
func mustNormalStore(tb testing.TB, rng *rand.Rand, words []string, dim int, scale float64) *embeddings.Store {
	tb.Helper()
	s, err := normalStore(rng, words, dim, scale)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// naiveDecode is the definition the Decoder must reproduce: the row minimising the float64
// squared distance, ties by lowest row.
func naiveDecode(store *embeddings.Store, z []float64) int {
	best, bestDist := -1, math.Inf(1)
	for w := 0; w < store.Len(); w++ {
		s := 0.0
		for t, x := range store.Vector(w) {
			d := z[t] - float64(x)
			s += d * d
		}
		if s < bestDist {
			best, bestDist = w, s
		}
	}
	return best
}

// hardStore builds a vocabulary with duplicate vectors and clusters of words that differ by a
// few float32 ulps, where float32 scoring alone would mis-order near-ties.
func hardStore(t *testing.T, rng *rand.Rand, dim int) *embeddings.Store {
	var words []string
	var vecs []float32
	add := func(v []float32) {
		words = append(words, fmt.Sprintf("w%d", len(words)))
		vecs = append(vecs, v...)
	}
	for range 300 {
		base := make([]float32, dim)
		for i := range base {
			base[i] = float32(rng.NormFloat64() * 3)
		}
		add(base)
		switch rng.IntN(3) {
		case 0: // exact duplicate
			add(append([]float32(nil), base...))
		case 1: // a few ulps apart in some coordinates
			v := append([]float32(nil), base...)
			for range 3 {
				i := rng.IntN(dim)
				v[i] = math.Nextafter32(v[i], float32(math.Inf(1+rng.IntN(2)*-2)))
			}
			add(v)
		}
	}
	s, err := embeddings.New(words, dim, vecs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// queriesNear returns m queries: vocabulary vectors plus noise of the given scale, and exact
// midpoints of pairs of vocabulary vectors (ties in exact arithmetic).
func queriesNear(rng *rand.Rand, store *embeddings.Store, m int, scale float64) []float64 {
	dim := store.Dim()
	q := make([]float64, m*dim)
	for i := range m {
		z := q[i*dim : (i+1)*dim]
		a := store.Vector(rng.IntN(store.Len()))
		if i%4 == 3 {
			b := store.Vector(rng.IntN(store.Len()))
			for t := range z {
				z[t] = (float64(a[t]) + float64(b[t])) / 2
			}
			continue
		}
		for t := range z {
			z[t] = float64(a[t]) + rng.NormFloat64()*scale
		}
	}
	return q
}

func TestDecoderMatchesNaiveFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	stores := map[string]*embeddings.Store{
		"random":       randomStore(t, rng, 1000, 50, 1),
		"odd sizes":    randomStore(t, rng, 37, 7, 2),
		"single":       randomStore(t, rng, 1, 3, 1),
		"near ties":    hardStore(t, rng, 40),
		"large blocks": randomStore(t, rng, 3*blockPanels*panelRows+5, 16, 1),
	}
	for _, kernel := range []string{"assembly", "portable"} {
		if kernel == "assembly" && !useAVX2 {
			continue
		}
		saved := useAVX2
		useAVX2 = kernel == "assembly"
		for name, store := range stores {
			for _, scale := range []float64{0, 1e-7, 0.3, 3} {
				queries := queriesNear(rng, store, 101, scale)
				want := make([]int, 101)
				for i := range want {
					want[i] = naiveDecode(store, queries[i*store.Dim():(i+1)*store.Dim()])
				}
				for _, workers := range []int{1, 2, 3} {
					dec, err := NewDecoder(store, workers)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]int, len(want))
					dec.Decode(queries, got)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%s kernel, %s, noise %g, %d workers: query %d decoded to %d, naive float64 to %d",
								kernel, name, scale, workers, i, got[i], want[i])
						}
					}
				}
			}
		}
		useAVX2 = saved
	}
}

func TestNewDecoderRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := NewDecoder(randomStore(t, rng, 3, 2, 1), -1); err == nil {
		t.Error("workers = -1 accepted")
	}
	if _, err := NewDecoder(nil, 1); err == nil {
		t.Error("nil store accepted")
	}
}

func BenchmarkDecoder(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("vocab=100000/queries=400/workers=%d", workers), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			store := randomStore(b, rng, 100000, 100, 0.4)
			dec, err := NewDecoder(store, workers)
			if err != nil {
				b.Fatal(err)
			}
			queries := queriesNear(rng, store, 400, 0.4)
			dst := make([]int, 400)
			for b.Loop() {
				dec.Decode(queries, dst)
			}
			b.ReportMetric(400*float64(b.N)/b.Elapsed().Seconds(), "words/s")
		})
	}
}

func TestBenchmarkDecodeReportsARate(t *testing.T) {
	wps, err := BenchmarkDecode(nil, 500, 450, 2, 1)
	if err != nil || !(wps > 0) || math.IsInf(wps, 1) {
		t.Errorf("random vocabulary: %v words/s, error %v", wps, err)
	}
	store := randomStore(t, rand.New(rand.NewPCG(1, 1)), 300, 8, 1)
	if wps, err := BenchmarkDecode(store, 100, 10, 1, 1); err != nil || !(wps > 0) {
		t.Errorf("store: %v words/s, error %v", wps, err)
	}
	if _, err := BenchmarkDecode(nil, 0, 10, 1, 1); err == nil {
		t.Error("random vocabulary of size 0 accepted")
	}
	if _, err := BenchmarkDecode(store, 0, 0, 1, 1); err == nil {
		t.Error("0 queries accepted")
	}
}
