package expmech

import (
	"slices"
	"testing"

	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// Uniform replacement: 50,000 draws over 5 words against 1/5 each (4 d.o.f., false-failure
// rate 0.001); the input does not matter and the length is kept.
func TestRandomIsUniformAndZeroDP(t *testing.T) {
	vocab := []string{"a", "b", "c", "d", "e"}
	r, err := NewRandom(vocab)
	if err != nil {
		t.Fatal(err)
	}
	doc := slices.Repeat([]string{"a", "zzz"}, 25000)
	out := r.Apply(rngs.New(1, "random/uniform"), doc)
	if len(out) != len(doc) {
		t.Fatalf("length %d, want %d", len(out), len(doc))
	}
	counts := make([]int, len(vocab))
	for _, w := range out {
		i := slices.Index(vocab, w)
		if i < 0 {
			t.Fatalf("output %q is not in the vocabulary", w)
		}
		counts[i]++
	}
	if chi2 := expMechChiSquare(counts, slices.Repeat([]float64{0.2}, 5)); chi2 > chi2Critical001[4] {
		t.Fatalf("χ² = %.2f > %.2f: %v", chi2, chi2Critical001[4], counts)
	}
	if g := r.Guarantee(doc); g.Kind != mechanisms.KindPure || g.Epsilon != 0 {
		t.Fatalf("guarantee %+v, want pure ε = 0", g)
	}
	if _, err := NewRandom(nil); err == nil {
		t.Fatal("an empty vocabulary must be an error")
	}
}
