package nearest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"dptext/embeddings"
	"dptext/internal/fixtures"
)

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

// naiveDecode2 is the definition Decode2 must reproduce: the rows with the smallest and second
// smallest float64 squared distance, ties by lowest row.
func naiveDecode2(store *embeddings.Store, z []float64) (int, int) {
	first, second := -1, -1
	d1, d2 := math.Inf(1), math.Inf(1)
	for w := 0; w < store.Len(); w++ {
		s := 0.0
		for t, x := range store.Vector(w) {
			d := z[t] - float64(x)
			s += d * d
		}
		if first < 0 || s < d1 {
			first, second, d1, d2 = w, first, s, d1
		} else if second < 0 || s < d2 {
			second, d2 = w, s
		}
	}
	return first, second
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

// kernels names the kernel configurations the tests cover: the AVX-512 Int8 kernel (full passes
// of int8WideTiles tiles; the rest with the AVX-VNNI or AVX2 sums), the AVX2 assembly with
// AVX-VNNI integer sums and with AVX2 ones, and the portable kernels.
var kernels = []string{"assembly-avx512", "assembly-vnni", "assembly", "portable"}

// useKernel switches the decoder to the named kernel configuration and returns a function that
// restores the previous one, or ok = false when this CPU cannot run it.
func useKernel(kernel string) (restore func(), ok bool) {
	if kernel != "portable" && !useAVX2 || kernel == "assembly-vnni" && !useVNNI || kernel == "assembly-avx512" && !useAVX512 {
		return nil, false
	}
	saved, savedVNNI, saved512 := useAVX2, useVNNI, useAVX512
	useAVX2 = kernel != "portable"
	useVNNI = kernel == "assembly-vnni" || kernel == "assembly-avx512" && useVNNI
	useAVX512 = kernel == "assembly-avx512"
	return func() { useAVX2, useVNNI, useAVX512 = saved, savedVNNI, saved512 }, true
}

// forEachKernel runs f with every kernel configuration this CPU can run.
func forEachKernel(t *testing.T, f func(t *testing.T, kernel string)) {
	for _, kernel := range kernels {
		if restore, ok := useKernel(kernel); ok {
			f(t, kernel)
			restore()
		}
	}
}

// checkAgainstNaive decodes queries with every method and worker count and fails on the first
// answer that differs from the naive float64 scan; with at least two words it checks Decode2's
// two nearest rows too.
func checkAgainstNaive(t *testing.T, label string, store *embeddings.Store, queries []float64) {
	t.Helper()
	m := len(queries) / store.Dim()
	want := make([]int, m)
	for i := range want {
		want[i] = naiveDecode(store, queries[i*store.Dim():(i+1)*store.Dim()])
	}
	for _, method := range []Method{Float32, Int8} {
		for _, workers := range []int{1, 2, 3} {
			dec, err := New(store, Options{Workers: workers, Method: method})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int, m)
			dec.Decode(queries, got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s, method %s, %d workers: query %d decoded to %d, naive float64 to %d",
						label, method, workers, i, got[i], want[i])
				}
			}
			if store.Len() < 2 {
				continue
			}
			first, second := make([]int, m), make([]int, m)
			dec.Decode2(queries, first, second)
			for i := range want {
				w1, w2 := naiveDecode2(store, queries[i*store.Dim():(i+1)*store.Dim()])
				if first[i] != w1 || second[i] != w2 {
					t.Fatalf("%s, method %s, %d workers: query %d 2-decoded to (%d, %d), naive float64 to (%d, %d)",
						label, method, workers, i, first[i], second[i], w1, w2)
				}
			}
		}
	}
}

func TestDecoderMatchesNaiveFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	stores := map[string]*embeddings.Store{
		"random":       fixtures.RandomStore(t, rng, 1000, 50, 1),
		"odd sizes":    fixtures.RandomStore(t, rng, 37, 7, 2),
		"single":       fixtures.RandomStore(t, rng, 1, 3, 1),
		"near ties":    hardStore(t, rng, 40),
		"large blocks": fixtures.RandomStore(t, rng, 3*blockPanels*panelRows+5, 16, 1),
	}
	forEachKernel(t, func(t *testing.T, kernel string) {
		for name, store := range stores {
			for _, scale := range []float64{0, 1e-7, 0.3, 3} {
				checkAgainstNaive(t, fmt.Sprintf("%s kernel, %s, noise %g", kernel, name, scale),
					store, queriesNear(rng, store, 101, scale))
			}
		}
	})
}

func TestNewDecoderRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := New(fixtures.RandomStore(t, rng, 3, 2, 1), Options{Workers: -1}); err == nil {
		t.Error("workers = -1 accepted")
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Error("nil store accepted")
	}
	if _, err := New(fixtures.RandomStore(t, rng, 3, MaxInt8Dim+1, 1), Options{Method: Int8}); err == nil {
		t.Errorf("method int8 accepted dimension %d", MaxInt8Dim+1)
	}
	if d, err := New(fixtures.RandomStore(t, rng, 3, MaxInt8Dim+1, 1), Options{}); err != nil || d.Method() != Float32 {
		t.Errorf("auto at dimension %d: method %v, error %v; want float32", MaxInt8Dim+1, d.Method(), err)
	}
	if _, err := New(fixtures.RandomStore(t, rng, 3, 2, 1), Options{Method: Method(7)}); err == nil {
		t.Error("method 7 accepted")
	}
}

func BenchmarkDecoder(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	store := fixtures.RandomStore(b, rng, 100000, 100, 0.4)
	queries := queriesNear(rng, store, 400, 0.4)
	for _, method := range []Method{Float32, Int8} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("method=%s/vocab=100000/queries=400/workers=%d", method, workers), func(b *testing.B) {
				dec, err := New(store, Options{Workers: workers, Method: method})
				if err != nil {
					b.Fatal(err)
				}
				dst := make([]int, 400)
				for b.Loop() {
					dec.Decode(queries, dst)
				}
				b.ReportMetric(400*float64(b.N)/b.Elapsed().Seconds(), "words/s")
			})
		}
	}
}

// BenchmarkDecoder2 is BenchmarkDecoder for the two nearest rows (Vickrey's decoding), one
// worker, so the two can be compared side by side.
func BenchmarkDecoder2(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	store := fixtures.RandomStore(b, rng, 100000, 100, 0.4)
	queries := queriesNear(rng, store, 400, 0.4)
	for _, method := range []Method{Float32, Int8} {
		b.Run(fmt.Sprintf("method=%s/vocab=100000/queries=400/workers=1", method), func(b *testing.B) {
			dec, err := New(store, Options{Workers: 1, Method: method})
			if err != nil {
				b.Fatal(err)
			}
			first, second := make([]int, 400), make([]int, 400)
			for b.Loop() {
				dec.Decode2(queries, first, second)
			}
			b.ReportMetric(400*float64(b.N)/b.Elapsed().Seconds(), "words/s")
		})
	}
}

func TestThroughputReportsRateRecheckAndRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	store := fixtures.RandomStore(t, rng, 300, 8, 1)
	queries := queriesNear(rng, store, 45, 0.5)
	for _, method := range []Method{Float32, Int8} {
		dec, err := New(store, Options{Workers: 1, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		wps, rechecked, rows, err := Throughput(dec, queries, 10)
		if err != nil || !(wps > 0) || math.IsInf(wps, 1) || !(rechecked >= 1) || len(rows) != 45 {
			t.Fatalf("%s: %v words/s, %v re-checked per query, %d rows, error %v", method, wps, rechecked, len(rows), err)
		}
		for i, r := range rows {
			if want := naiveDecode(store, queries[i*8:(i+1)*8]); r != want {
				t.Fatalf("%s: query %d decoded to %d, naive %d", method, i, r, want)
			}
		}
		if _, _, _, err := Throughput(dec, queries, 0); err == nil {
			t.Error("batch 0 accepted")
		}
		if _, _, _, err := Throughput(dec, queries[:7], 10); err == nil {
			t.Error("7 query values of dimension 8 accepted")
		}
	}
}

func TestSharedReturnsOneDecoderPerKey(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(3, 3)), 50, 4, 1)
	a, err := Shared(store, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Shared(store, 20, 1)
	c, _ := Shared(store, 30, 1)
	if a != b || a == c || a.Store().Len() != 20 || c.Store().Len() != 30 {
		t.Errorf("Shared: same key gave %p and %p, other top_k %p; sizes %d and %d", a, b, c, a.Store().Len(), c.Store().Len())
	}
}

func TestMeasureFMAPeakIsPlausible(t *testing.T) {
	peak := MeasureFMAPeak(1, 20*time.Millisecond)
	if !useAVX2 {
		if peak != 0 {
			t.Errorf("no FMA loop on this CPU, yet a peak of %g", peak)
		}
		return
	}
	// One AVX2 core: at least 8 flops per cycle at 0.5 GHz, at most 64 (four FMA pipes) at 6 GHz.
	if peak < 4e9 || peak > 384e9 {
		t.Errorf("one core's float32 FMA peak measured as %.3g flop/s", peak)
	}
}

// TestKernelNamesTheSelectedKernel checks that Decoder.Kernel reports each kernel switch.
func TestKernelNamesTheSelectedKernel(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(4, 4)), 20, 8, 1)
	want := map[string]string{"assembly-avx512": "avx512-vnni", "assembly-vnni": "avx-vnni", "assembly": "avx2", "portable": "portable"}
	forEachKernel(t, func(t *testing.T, kernel string) {
		for _, m := range []Method{Int8, Float32} {
			d, err := New(store, Options{Method: m})
			if err != nil {
				t.Fatal(err)
			}
			w := want[kernel]
			if m == Float32 && kernel != "portable" {
				w = "avx2-fma"
			}
			if got := d.Kernel(); got != w {
				t.Errorf("%s kernel, method %s: Kernel() = %q, want %q", kernel, m, got, w)
			}
		}
	})
}
