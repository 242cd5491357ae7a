package metricdp

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// streamAfter returns a function giving generators in the state of a fresh rngs.New(seed, path) stream after the
// draws a function makes from it: the state a caller sharing draws hands every Release.
func streamAfter(seed uint64, path string, draw func(*rand.Rand)) func() *rand.Rand {
	src := rand.NewChaCha8(rngs.Key(seed, path))
	draw(rand.New(src))
	state, err := src.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return func() *rand.Rand {
		c := &rand.ChaCha8{}
		if err := c.UnmarshalBinary(state); err != nil {
			panic(err)
		}
		return rand.New(c)
	}
}

// EMD's "keep" and "drop" share their draws (DrawKey): released from one Draw, the drop output is
// the keep output without its out-of-vocabulary words — the same decoded words, in the same
// places under order "keep", the same multiset under order "bag" — and each equals Apply on a
// generator in the same state, so a caller sharing draws releases what each mechanism alone
// would. Mutants caught: a DrawKey naming the policy (keys differ), a Release that draws noise
// again instead of reading the draws (outputs differ from Apply's), a Release that ignores its
// policy (drop output keeps "oov").
func TestEMDSharedDrawsAreWhatBothPoliciesRelease(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(9, 9)), 300, 8, 1)
	doc := strings.Fields("w0 w1 oov w2 w3 w5 w8 other w13 w21 w34 w1 w1 oov")
	for _, order := range []string{mechanisms.OrderKeep, mechanisms.OrderBag} {
		keep, err := NewEMD(store, 2, EMDOptions{OOV: OOVKeep, Workers: 1, Order: order})
		if err != nil {
			t.Fatal(err)
		}
		drop, err := NewEMD(store, 2, EMDOptions{OOV: OOVDrop, Workers: 2, Order: order})
		if err != nil {
			t.Fatal(err)
		}
		if keep.DrawKey() != drop.DrawKey() {
			t.Fatalf("order %s: keep and drop do not share draws: %q vs %q", order, keep.DrawKey(), drop.DrawKey())
		}
		var d mechanisms.Draws
		after := streamAfter(5, "doc", func(rng *rand.Rand) {
			if d, err = keep.Draw(rng, doc); err != nil {
				t.Fatal(err)
			}
		})
		outKeep, err := keep.Release(after(), doc, d)
		if err != nil {
			t.Fatal(err)
		}
		outDrop, err := drop.Release(after(), doc, d)
		if err != nil {
			t.Fatal(err)
		}
		if want := keep.Apply(rngs.New(5, "doc"), doc); !slices.Equal(outKeep, want) {
			t.Fatalf("order %s: keep released %v from shared draws, Apply %v", order, outKeep, want)
		}
		if want := drop.Apply(rngs.New(5, "doc"), doc); !slices.Equal(outDrop, want) {
			t.Fatalf("order %s: drop released %v from shared draws, Apply %v", order, outDrop, want)
		}
		known := slices.DeleteFunc(slices.Clone(outKeep), func(w string) bool { _, ok := store.Lookup(w); return !ok })
		if len(known) != len(outKeep)-3 {
			t.Fatalf("order %s: keep output %v should hold the 3 out-of-vocabulary tokens", order, outKeep)
		}
		if order == mechanisms.OrderBag {
			slices.Sort(known)
			outDrop = slices.Sorted(slices.Values(outDrop))
		}
		if !slices.Equal(known, outDrop) {
			t.Fatalf("order %s: drop released %v, keep's decoded words are %v", order, outDrop, known)
		}
	}
}

// Draws belong to one document and one set of noised tokens: Release refuses draws of another
// document and nearest-known's draws (which noise the out-of-vocabulary words too), and the
// keys of nearest-known and of another ε differ from keep's.
func TestEMDReleaseRefusesForeignDraws(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(9, 9)), 300, 8, 1)
	doc := strings.Fields("w0 w1 oov w2")
	keep, _ := NewEMD(store, 2, EMDOptions{OOV: OOVKeep, Workers: 1})
	near, _ := NewEMD(store, 2, EMDOptions{OOV: OOVNearestKnown, Workers: 1})
	other, _ := NewEMD(store, 3, EMDOptions{OOV: OOVKeep, Workers: 1})
	if keep.DrawKey() == near.DrawKey() || keep.DrawKey() == other.DrawKey() {
		t.Fatalf("keys %q, %q, %q should all differ", keep.DrawKey(), near.DrawKey(), other.DrawKey())
	}
	d, err := near.Draw(rngs.New(1, "x"), doc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keep.Release(rngs.New(1, "x"), doc, d); err == nil {
		t.Error("keep released nearest-known's draws")
	}
	d, _ = keep.Draw(rngs.New(1, "x"), doc)
	if _, err := keep.Release(rngs.New(1, "x"), strings.Fields("w0 oov w1 w2"), d); err == nil {
		t.Error("draws of one document released for another")
	}
	if _, err := keep.Release(rngs.New(1, "x"), doc, "not draws"); err == nil {
		t.Error("a foreign value released as draws")
	}
}

// BenchmarkEMDKeepAndDropAgainstReference privatises one 400-word snippet under "keep" and
// "drop" at ε = 10 over 30,000 100-d words: "shared" draws once and releases both (the runner
// since issue 38), "reference" applies each mechanism on its own stream (before). The ratio
// reference/shared is the decoding saved (about 2).
func BenchmarkEMDKeepAndDropAgainstReference(b *testing.B) {
	store := fixtures.RandomStore(b, rand.New(rand.NewPCG(1, 2)), 30000, 100, 0.4)
	keep, err := NewEMD(store, 10, EMDOptions{OOV: OOVKeep, Workers: 1, Order: mechanisms.OrderBag})
	if err != nil {
		b.Fatal(err)
	}
	drop, err := NewEMD(store, 10, EMDOptions{OOV: OOVDrop, Workers: 1, Order: mechanisms.OrderBag})
	if err != nil {
		b.Fatal(err)
	}
	doc := make([]string, 400)
	for i := range doc {
		doc[i] = store.Word(i * 7)
	}
	doc[3], doc[99] = "unknown", "unseen"
	b.Run("shared", func(b *testing.B) {
		for b.Loop() {
			var d mechanisms.Draws
			after := streamAfter(1, "bench", func(rng *rand.Rand) { d, err = keep.Draw(rng, doc) })
			if err != nil {
				b.Fatal(err)
			}
			if _, err := keep.Release(after(), doc, d); err != nil {
				b.Fatal(err)
			}
			if _, err := drop.Release(after(), doc, d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			keep.Apply(rngs.New(1, "bench/keep"), doc)
			drop.Apply(rngs.New(1, "bench/drop"), doc)
		}
	})
}
