package nearest_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"dptext/embeddings"
	"dptext/experiments/bench"
	"dptext/internal/datasets"
	"dptext/mechanisms/nearest"
)

// gloveStore loads the topK most frequent words of the default GloVe cache. Without the data the
// test is skipped on a developer's machine and fails in CI (CI=true), where `dptext data` runs
// first.
func gloveStore(t testing.TB, topK int) *embeddings.Store {
	t.Helper()
	missing := func(reason string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI runs `dptext data` first; this test must run there)", reason)
		}
		t.Skip(reason)
	}
	cache, err := datasets.DefaultCacheDir()
	if err != nil {
		missing(err.Error())
	}
	d, err := datasets.Lookup("glove-wink-100d")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cache, d.Name+"-"+d.Version, "vectors.emb")
	if _, err := os.Stat(path); err != nil {
		missing("no GloVe cache: run `dptext data` first: " + err.Error())
	}
	s, err := embeddings.ReadCache(path, topK)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// naive is the definition: the row minimising the float64 squared distance, ties by lowest row.
func naive(store *embeddings.Store, z []float64) int {
	best, bestDist := -1, math.Inf(1)
	for w := range store.Len() {
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

// TestDecodersMatchNaiveOnGloVe decodes EMD-noisy vectors of GloVe words drawn by Zipf's law
// over frequency rank, at every ε of the configs, with both methods and every kernel this CPU
// runs, and compares each answer with the naive float64 scan.
func TestDecodersMatchNaiveOnGloVe(t *testing.T) {
	store := gloveStore(t, 30000)
	rng := rand.New(rand.NewPCG(2019, 16))
	decoders := map[nearest.Method]*nearest.Decoder{}
	for _, m := range []nearest.Method{nearest.Float32, nearest.Int8} {
		d, err := nearest.New(store, nearest.Options{Workers: 2, Method: m})
		if err != nil {
			t.Fatal(err)
		}
		decoders[m] = d
	}
	dim := store.Dim()
	for _, eps := range []float64{5, 10, 15, 20, 25} {
		rows := nearest.ZipfRows(rng, store.Len(), 120)
		queries := bench.EMDQueries(rng, store, rows, eps)
		want := make([]int, len(rows))
		for i := range want {
			want[i] = naive(store, queries[i*dim:(i+1)*dim])
		}
		for _, kernel := range nearest.Kernels {
			restore, ok := nearest.UseKernel(kernel)
			if !ok {
				continue
			}
			for m, d := range decoders {
				got := make([]int, len(rows))
				d.Decode(queries, got)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("ε = %g, method %s, %s kernel: query %d (word %q) decoded to %q, naive float64 to %q",
							eps, m, kernel, i, store.Word(rows[i]), store.Word(got[i]), store.Word(want[i]))
					}
				}
			}
			restore()
		}
	}
	st := decoders[nearest.Int8].Stats()
	t.Logf("int8: %.2f rows re-checked per query of %d", float64(st.Rechecked)/float64(st.Queries), store.Len())
}

// BenchmarkInt8GloVe decodes EMD-noisy vectors of GloVe words (top 100,000 as in Table 1 and top
// 20,000 as in configs/mechanisms.toml, words drawn by Zipf's
// law over frequency rank) at ε = 10 and ε = 5 with each Int8 assembly kernel this CPU runs, the workload
// of `dptext bench decode --glove`, so that the kernels can be compared and profiled
// (`go test -bench Int8GloVe -cpuprofile`).
func BenchmarkInt8GloVe(b *testing.B) {
	for _, topK := range []int{100000, 20000} {
		store := gloveStore(b, topK)
		dec, err := nearest.New(store, nearest.Options{Method: nearest.Int8})
		if err != nil {
			b.Fatal(err)
		}
		for _, eps := range []float64{10, 5} {
			rng := rand.New(rand.NewPCG(2019, 10))
			rows := nearest.ZipfRows(rng, store.Len(), 2000)
			queries := bench.EMDQueries(rng, store, rows, eps)
			dst := make([]int, len(rows))
			for _, kernel := range nearest.Kernels {
				if kernel == "portable" { // it would take minutes here
					continue
				}
				restore, ok := nearest.UseKernel(kernel)
				if !ok {
					continue
				}
				b.Run(fmt.Sprintf("top=%d/epsilon=%g/kernel=%s", topK, eps, kernel), func(b *testing.B) {
					for b.Loop() {
						dec.Decode(queries, dst)
					}
					b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "words/s")
				})
				restore()
			}
		}
	}
}
