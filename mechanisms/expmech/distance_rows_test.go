package expmech

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"dptext/embeddings"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// distanceMechanisms builds SanText, SanText+, TEM and the truncated Gumbel at ε (the Gumbel at
// gumbelEpsilon(ε)) on store, sharing rows when not nil.
func distanceMechanisms(t testing.TB, eps float64, rows *DistanceRows) map[string]mechanisms.BatchMechanism {
	t.Helper()
	san, err := NewSanText(expMechGoldenStoreOf(t), eps, DefaultSanTextOptions())
	if err != nil {
		t.Fatal(err)
	}
	plus, err := NewSanText(expMechGoldenStoreOf(t), eps, DefaultSanTextPlusOptions())
	if err != nil {
		t.Fatal(err)
	}
	tem, err := NewTEM(expMechGoldenStoreOf(t), eps, DefaultTEMOptions())
	if err != nil {
		t.Fatal(err)
	}
	gumbel, err := NewTruncatedGumbel(expMechGoldenStoreOf(t), gumbelEpsilon(t, eps), DefaultTruncatedGumbelOptions())
	if err != nil {
		t.Fatal(err)
	}
	if rows != nil {
		san.ShareDistances(rows)
		plus.ShareDistances(rows)
		tem.ShareDistances(rows)
		gumbel.ShareDistances(rows)
	}
	return map[string]mechanisms.BatchMechanism{"santext": san, "santext+": plus, "tem": tem, "truncated-gumbel": gumbel}
}

// gumbelEpsilon is eps moved above the truncated Gumbel's smallest ε on the shared store
// (TruncatedGumbelMinEpsilon): (1 + eps) times it.
func gumbelEpsilon(t testing.TB, eps float64) float64 {
	t.Helper()
	store := expMechGoldenStoreOf(t)
	dmin, _, err := sharedDistanceRange(store)
	if err != nil {
		t.Fatal(err)
	}
	return (1 + eps) * TruncatedGumbelMinEpsilon(store.Len(), dmin)
}

var (
	sharedStoreOnce sync.Once
	sharedStore     *embeddings.Store
)

// expMechGoldenStoreOf is one 3,000-word, 50-dimensional store shared by the tests of this file
// (the mechanisms share rows only when built on the same store).
func expMechGoldenStoreOf(t testing.TB) *embeddings.Store {
	sharedStoreOnce.Do(func() { sharedStore = expMechGoldenStore(t, 3000, 50) })
	return sharedStore
}

// TestSharedDistanceRowsKeepOutput: SanText, SanText+, TEM and the truncated Gumbel release
// byte-identical outputs
// with and without the run's shared distance rows, at three ε in turn (rows made at one ε serve
// the next), on Zipf documents with the budget too small for every row (so cached and computed
// rows mix), and with two goroutines sharing the rows at once. Mutants (run by hand): ratings
// from shared rows without the truncation γ (TEM's output changes), rows stored under the
// wrong word, or the Gumbel's neighbours read from the rows of the next word, fail.
func TestSharedDistanceRowsKeepOutput(t *testing.T) {
	store := expMechGoldenStoreOf(t)
	docs := expMechZipfDocs(store, 6, 40, 150)
	rows := NewDistanceRows(store, int64(8*store.Len()*200)) // 200 rows: fewer than the documents' words
	gens := func(name string) []*rand.Rand {
		g := make([]*rand.Rand, len(docs))
		for i := range g {
			g[i] = rngs.New(9, fmt.Sprintf("%s/%d", name, i))
		}
		return g
	}
	for _, eps := range []float64{1, 3, 10} {
		plain := distanceMechanisms(t, eps, nil)
		var wg sync.WaitGroup
		for _, worker := range []string{"a", "b"} {
			shared := distanceMechanisms(t, eps, rows)
			for name, m := range shared {
				wg.Go(func() {
					stream := fmt.Sprintf("%s/%g/%s", name, eps, worker)
					got, want := m.ApplyBatch(gens(stream), docs), plain[name].ApplyBatch(gens(stream), docs)
					for d := range docs {
						if !slices.Equal(got[d], want[d]) {
							t.Errorf("%s at ε %g: document %d differs with shared distance rows", name, eps, d)
							return
						}
					}
				})
			}
		}
		wg.Wait()
	}
	if kept, budget, again := rows.Stats(); kept != 200 || budget != 200 || again == 0 {
		t.Errorf("the shared rows hold %d rows of a budget of %d, %d computed past it: want the budget's 200 and some past it", kept, budget, again)
	}
}

// Cell-sized work of the distance samplers at three ε (a run's grid): rows computed per
// mechanism (the reference, as before sharing) against the run's shared distance rows, in one
// process, over a 20,000 × 100 vocabulary and 60 Zipf documents of 400 tokens.
func BenchmarkSharedDistanceRows(b *testing.B) {
	store := expMechGoldenStore(b, 20000, 100)
	docs := expMechZipfDocs(store, 60, 50, 400)
	run := func(b *testing.B, share bool) {
		for b.Loop() {
			var rows *DistanceRows
			if share {
				rows = NewDistanceRows(store, 1<<30)
			}
			for _, eps := range []float64{2, 3, 4} {
				m, _ := NewSanText(store, eps, DefaultSanTextOptions())
				if rows != nil {
					m.ShareDistances(rows)
				}
				g := make([]*rand.Rand, len(docs))
				for i := range g {
					g[i] = rngs.New(1, fmt.Sprint(i))
				}
				m.ApplyBatch(g, docs)
			}
		}
	}
	b.Run("per-mechanism", func(b *testing.B) { run(b, false) })
	b.Run("shared", func(b *testing.B) { run(b, true) })
}
