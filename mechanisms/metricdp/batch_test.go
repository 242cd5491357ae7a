package metricdp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// batchMechanisms are the noise-then-decode mechanisms with a batch path, in each
// configuration whose draws or release differ: EMD under every out-of-vocabulary policy and
// both orders, CMP, Mahalanobis, and Vickrey over both noises.
func batchMechanisms(t *testing.T, store *embeddings.Store) map[string]mechanisms.FallibleMechanism {
	t.Helper()
	out := map[string]mechanisms.FallibleMechanism{}
	add := func(name string, m mechanisms.FallibleMechanism, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = m
	}
	for _, oov := range []string{OOVKeep, OOVDrop, OOVNearestKnown} {
		for _, order := range []string{mechanisms.OrderBag, mechanisms.OrderKeep} {
			o := DefaultEMDOptions()
			o.OOV, o.Order = oov, order
			m, err := NewEMD(store, 4, o)
			add(fmt.Sprintf("emd/oov=%s/order=%s", oov, order), m, err)
		}
	}
	cmp, err := NewCMP(store, 4, DefaultCMPOptions())
	add("cmp", cmp, err)
	mah, err := NewMahalanobis(store, 4, DefaultMahalanobisOptions())
	add("mahalanobis", mah, err)
	for _, noise := range []string{VickreyNoiseLaplace, VickreyNoiseMahalanobis} {
		o := DefaultVickreyOptions()
		o.Noise = noise
		v, err := NewVickrey(store, 4, o)
		add("vickrey/noise="+noise, v, err)
	}
	return out
}

// batchDocs are documents of the shapes the runner, the audit and the distinguishing game
// release: long ones, one-word ones, empty ones and ones with out-of-vocabulary words, in all
// more noisy vectors than one decoding call takes (decodeChunk), so the batch spans calls.
func batchDocs(store *embeddings.Store, rng *rand.Rand) [][]string {
	var docs [][]string
	total := 0
	for total <= decodeChunk+500 {
		var doc []string
		switch len(docs) % 4 {
		case 0:
			doc = nil
		case 1:
			doc = []string{store.Word(rng.IntN(store.Len()))}
		default:
			for range 1 + rng.IntN(400) {
				if rng.IntN(10) == 0 {
					doc = append(doc, fmt.Sprintf("unknown%d", rng.IntN(5)))
				} else {
					doc = append(doc, store.Word(rng.IntN(store.Len())))
				}
			}
		}
		total += len(doc)
		docs = append(docs, doc)
	}
	return docs
}

// generatorsFor are the documents' generators of one path (equal paths: equal states).
func generatorsFor(n int, path string) []*rand.Rand {
	g := make([]*rand.Rand, n)
	for i := range g {
		g[i] = rngs.New(48, fmt.Sprintf("%s/%d", path, i))
	}
	return g
}

// The batch path releases exactly what TryApply (a batch of one) releases on each document alone
// with a generator in the same state, and leaves every generator where TryApply leaves it;
// EMD's DrawBatch gives Draw's draws. With one generator repeated, the batch releases what
// TryApply on each document in turn releases (mechanisms.InTurnDrawer). Documents of every shape, more noisy vectors than one decoding call takes.
// Mutants (run by hand for issue 48): a document's decoded words read from the next document's
// offset, or Vickrey's choices drawn before the batch's decoding from a generator of another
// document, fail.
func TestBatchEqualsPerDocument(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(48, 1)), 300, 8, 1)
	docs := batchDocs(store, rand.New(rand.NewPCG(48, 2)))
	for name, m := range batchMechanisms(t, store) {
		bm, ok := m.(mechanisms.FallibleBatchMechanism)
		if !ok {
			t.Fatalf("%s has no batch path", name)
		}
		batchGens, oneGens := generatorsFor(len(docs), name), generatorsFor(len(docs), name)
		got, err := bm.TryApplyBatch(batchGens, docs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for d, doc := range docs {
			want, err := m.TryApply(oneGens[d], doc)
			if err != nil {
				t.Fatalf("%s: document %d: %v", name, d, err)
			}
			if !slices.Equal(got[d], want) {
				t.Fatalf("%s: document %d (%d words): batch %v, alone %v", name, d, len(doc), got[d], want)
			}
			if a, b := batchGens[d].Uint64(), oneGens[d].Uint64(); a != b {
				t.Fatalf("%s: document %d: the generators are left in different states", name, d)
			}
		}
		// One generator repeated (mechanisms.InTurnDrawer): the documents released in turn.
		if it, ok := m.(mechanisms.InTurnDrawer); !ok || !it.DrawsInTurn() {
			t.Fatalf("%s does not draw in turn", name)
		}
		one, alone := rngs.New(48, name+"/in-turn"), rngs.New(48, name+"/in-turn")
		repeated := make([]*rand.Rand, len(docs))
		for i := range repeated {
			repeated[i] = one
		}
		got, err = bm.TryApplyBatch(repeated, docs)
		if err != nil {
			t.Fatal(err)
		}
		for d, doc := range docs {
			want, err := m.TryApply(alone, doc)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got[d], want) {
				t.Fatalf("%s: one generator repeated: document %d differs from TryApply in turn", name, d)
			}
		}
		if one.Uint64() != alone.Uint64() {
			t.Fatalf("%s: one generator repeated: left in another state than TryApply in turn leaves it", name)
		}
		if e, ok := m.(*EMD); ok {
			bg, og := generatorsFor(len(docs), name+"/draws"), generatorsFor(len(docs), name+"/draws")
			draws, err := e.DrawBatch(bg, docs)
			if err != nil {
				t.Fatal(err)
			}
			for d, doc := range docs {
				want, err := e.Draw(og[d], doc)
				if err != nil {
					t.Fatal(err)
				}
				a, b := draws[d].(*emdDraws), want.(*emdDraws)
				if !slices.Equal(a.rows, b.rows) || !slices.Equal(a.decoded, b.decoded) || bg[d].Uint64() != og[d].Uint64() {
					t.Fatalf("%s: DrawBatch differs from Draw at document %d", name, d)
				}
			}
		}
	}
}

// BenchmarkBatchOfShortDocuments releases 1,000 one-word documents (the audit's decoding
// check, the distinguishing game's coupled releases) on a 20,000 × 100 vocabulary, through the
// batch path and one document at a time (the reference, as before the batch path) in the same
// process.
func BenchmarkBatchOfShortDocuments(b *testing.B) {
	store := fixtures.RandomStore(b, rand.New(rand.NewPCG(48, 3)), 20000, 100, 0.4)
	docs := make([][]string, 1000)
	rng := rand.New(rand.NewPCG(48, 4))
	for i := range docs {
		docs[i] = []string{store.Word(rng.IntN(store.Len()))}
	}
	emd, err := NewEMD(store, 10, DefaultEMDOptions())
	if err != nil {
		b.Fatal(err)
	}
	vickrey, err := NewVickrey(store, 10, DefaultVickreyOptions())
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []struct {
		name string
		m    interface {
			mechanisms.FallibleMechanism
			mechanisms.FallibleBatchMechanism
		}
	}{{"emd", emd}, {"vickrey", vickrey}} {
		b.Run(m.name+"/batch", func(b *testing.B) {
			for b.Loop() {
				if _, err := m.m.TryApplyBatch(generatorsFor(len(docs), "bench"), docs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(m.name+"/reference=one-by-one", func(b *testing.B) {
			for b.Loop() {
				gens := generatorsFor(len(docs), "bench")
				for d, doc := range docs {
					if _, err := m.m.TryApply(gens[d], doc); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
