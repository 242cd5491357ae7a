package nearest_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"dptext/datasets"
	"dptext/embeddings"
	"dptext/mechanisms"
	"dptext/nearest"
)

// gloveStore loads the topK most frequent words of the default GloVe cache. Without the data the
// test is skipped on a developer's machine and fails in CI (CI=true), where `dptext data` runs
// first.
func gloveStore(t *testing.T, topK int) *embeddings.Store {
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
// over frequency rank, at every ε of the configs, with both methods, and compares each answer
// with the naive float64 scan.
func TestDecodersMatchNaiveOnGloVe(t *testing.T) {
	store := gloveStore(t, 30000)
	rng := rand.New(rand.NewPCG(2019, 16))
	cum := make([]float64, store.Len())
	total := 0.0
	for r := range cum {
		total += 1 / float64(r+1)
		cum[r] = total
	}
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
		rows := make([]int, 120)
		for i := range rows {
			rows[i] = min(store.Len()-1, sort.SearchFloat64s(cum, rng.Float64()*total))
		}
		queries := mechanisms.EMDQueries(rng, store, rows, eps)
		want := make([]int, len(rows))
		for i := range want {
			want[i] = naive(store, queries[i*dim:(i+1)*dim])
		}
		for m, d := range decoders {
			got := make([]int, len(rows))
			d.Decode(queries, got)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("ε = %g, method %s: query %d (word %q) decoded to %q, naive float64 to %q",
						eps, m, i, store.Word(rows[i]), store.Word(got[i]), store.Word(want[i]))
				}
			}
		}
	}
	st := decoders[nearest.Int8].Stats()
	t.Logf("int8: %.2f rows re-checked per query of %d", float64(st.Rechecked)/float64(st.Queries), store.Len())
}
