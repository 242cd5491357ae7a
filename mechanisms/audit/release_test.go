package audit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/expmech"
)

// batchLeak is a mutant of SanText+ whose batch path (ApplyBatch, what the runner's
// mechanisms.PrivatizeBatch calls) releases every sensitive word unchanged, while its Apply is
// SanText+'s own: a leak that exists only in the code that writes a run's results.
type batchLeak struct {
	*expmech.SanText
	store     *embeddings.Store
	sensitive int // rows ≥ sensitive are sensitive
}

func (b batchLeak) ApplyBatch(gens []*rand.Rand, docs [][]string) [][]string {
	out := b.SanText.ApplyBatch(gens, docs)
	for d, doc := range docs {
		for i, w := range doc {
			if r, ok := b.store.Lookup(w); ok && r >= b.sensitive {
				out[d][i] = w
			}
		}
	}
	return out
}

var _ mechanisms.BatchMechanism = batchLeak{}

// TestReleasePathLeak: the audit draws through the release path, so SanText+ leaking sensitive
// words only in its batch path fails (its sampler test and its own-word test reject every
// sensitive input), although its Apply is correct; the correct SanText+ passes.
func TestReleasePathLeak(t *testing.T) {
	store := fixtures.Grid(t, 10)
	const eps = 3
	m, err := expmech.NewSanText(store, eps, expmech.DefaultSanTextPlusOptions())
	if err != nil {
		t.Fatal(err)
	}
	good := mustRun(t, target(t, "santext+", m, store), options(3000))
	if v := good.Violations(); len(v) > 0 {
		t.Errorf("correct santext+ rejected: %s", v[0].Describe())
	}
	mutant := batchLeak{SanText: m, store: store, sensitive: store.Len() - int(math.Floor(0.9*float64(store.Len())))}
	doc := []string{store.Word(50), store.Word(60)}
	if a, b := mutant.Apply(rngs.New(1, "d"), doc), mutant.ApplyBatch([]*rand.Rand{rngs.New(1, "d")}, [][]string{doc})[0]; slices.Equal(a, b) {
		t.Fatalf("the mutant's Apply and batch path agree (%q): it tests nothing", a)
	}
	r := mustRun(t, target(t, "santext+ batch leak", mutant, store), options(3000))
	rejected := 0
	for _, f := range r.Violations() {
		if f.Level == "sampler" {
			rejected++
		}
	}
	if rejected == 0 {
		t.Fatalf("santext+ leaking sensitive words in its batch path passed: %d findings, none rejected", len(r.Findings))
	}
}
