package syntf

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// ApplyBatch gives, word for word, what Apply gives on each document with the same generator:
// 12 documents over a 400-word vocabulary, with more distinct source words than one window of
// rows (batchWindow) and a document without any vocabulary word (its sources drawn uniformly),
// with and without the row cache. Equal outputs for equal generators mean the same
// distribution. Mutant: the batch searching each row one index too far — the test fails.
func TestSynTFApplyBatchEqualsApply(t *testing.T) {
	store := randomSynTFStore(t, 6, 400, 5)
	rng := rand.New(rand.NewPCG(1, 2))
	docs := make([][]string, 12)
	for d := range docs {
		for range 150 {
			docs[d] = append(docs[d], store.Word(rng.IntN(store.Len())))
		}
	}
	docs[5] = []string{"nothing", "in", "vocabulary"}
	gens := func() []*rand.Rand {
		g := make([]*rand.Rand, len(docs))
		for i := range g {
			g[i] = rand.New(rand.NewPCG(uint64(i), 7))
		}
		return g
	}
	for _, cacheRows := range []int{0, 256} {
		o := synTFTestOptions()
		o.CacheRows, o.TightBound, o.Length = cacheRows, false, 300
		m, err := NewSynTF(store, 8, o)
		if err != nil {
			t.Fatal(err)
		}
		got := m.ApplyBatch(gens(), docs)
		for i, g := range gens() {
			if want := m.Apply(g, docs[i]); !reflect.DeepEqual(got[i], want) {
				t.Errorf("cache_rows = %d, document %d: ApplyBatch and Apply differ", cacheRows, i)
			}
		}
	}
	distinct := map[string]bool{}
	for _, d := range docs {
		for _, w := range d {
			distinct[w] = true
		}
	}
	if len(distinct) <= batchWindow {
		t.Fatalf("only %d distinct words: the test does not cross a window", len(distinct))
	}
}
