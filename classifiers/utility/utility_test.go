package utility

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"dptext/embeddings"
)

// plane is a 2-d store: a = (1, 0), b = (0, 1), c = (1, 1).
func plane(t *testing.T) *embeddings.Store {
	s, err := embeddings.New([]string{"a", "b", "c"}, 2, []float32{1, 0, 0, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMeanCosine(t *testing.T) {
	var m PairMetric
	m, err := NewMeanCosine(plane(t), CosineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b []string
		want float64
	}{
		{[]string{"a", "b", "oov"}, []string{"c"}, 1},
		{[]string{"a"}, []string{"b", "oov"}, 0},
		{[]string{"a", "a", "a", "b"}, []string{"c"}, 4 / math.Sqrt(2*10)}, // (3,1)/4 · (1,1)
	}
	for _, c := range cases {
		if got := m.Measure(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("cosine(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := m.Measure([]string{"oov"}, []string{"a"}); !math.IsNaN(got) {
		t.Errorf("document without known words gave %v, want NaN", got)
	}
}

func TestWordMoversDistance(t *testing.T) {
	var m PairMetric
	m, err := NewWordMoversDistance(plane(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b []string
		want float64
	}{
		// All mass goes to c: 2/3·|a−c| + 1/3·|b−c| = 1.
		{[]string{"a", "a", "b"}, []string{"c"}, 1},
		// b stays, a moves to c: ½·0 + ½·1 (the alternative a→b, b→c costs (√2 + 1)/2).
		{[]string{"a", "b"}, []string{"b", "c", "oov"}, 0.5},
		{[]string{"b", "a", "b"}, []string{"a", "b", "b"}, 0},
		{[]string{"a"}, []string{"b"}, math.Sqrt2},
	}
	for _, c := range cases {
		if got := m.Measure(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("wmd(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got, back := m.Measure(c.a, c.b), m.Measure(c.b, c.a); math.Abs(got-back) > 1e-12 {
			t.Errorf("wmd not symmetric: %v vs %v", got, back)
		}
	}
	if got := m.Measure([]string{"a"}, nil); !math.IsNaN(got) {
		t.Errorf("empty document gave %v, want NaN", got)
	}
}

func TestStyleL2(t *testing.T) {
	// Style = (length, number of "a").
	style := func(doc []string) []float64 {
		return []float64{float64(len(doc)), float64(strings.Count(strings.Join(doc, " ")+" ", "a "))}
	}
	var m PairMetric
	m, err := NewStyleL2(style)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Measure([]string{"a", "b", "a"}, []string{"b"}); math.Abs(got-math.Sqrt(8)) > 1e-12 {
		t.Errorf("style_l2 = %v, want √8", got)
	}
	if _, err := NewStyleL2(nil); err == nil {
		t.Error("nil style function accepted")
	}
	if _, err := NewMeanCosine(nil, DefaultCosineOptions()); err == nil {
		t.Error("nil store accepted by cosine")
	}
	if _, err := NewWordMoversDistance(nil); err == nil {
		t.Error("nil store accepted by wmd")
	}
}

// Centring subtracts the vocabulary mean: two words on opposite sides of it become opposite.
func TestMeanCosineCentered(t *testing.T) {
	m, err := NewMeanCosine(plane(t), DefaultCosineOptions())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := NewMeanCosine(plane(t), CosineOptions{})
	if got := m.Measure([]string{"a"}, []string{"a"}); math.Abs(got-1) > 1e-12 {
		t.Errorf("centred cosine of a document with itself = %v, want 1", got)
	}
	if m.Measure([]string{"a"}, []string{"b"}) >= raw.Measure([]string{"a"}, []string{"b"}) {
		t.Errorf("centring did not lower the similarity of two different words")
	}
}

// Cancelling the mass both documents share does not change the distance: compare with the
// full transport problem on random overlapping bags.
func TestWMDSharedMassCancellationIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	words := make([]string, 30)
	vecs := make([]float32, 30*4)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
		for k := 0; k < 4; k++ {
			vecs[i*4+k] = float32(rng.NormFloat64())
		}
	}
	store, err := embeddings.New(words, 4, vecs)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := NewWordMoversDistance(store)
	for trial := 0; trial < 50; trial++ {
		a, b := make([]string, 40), make([]string, 25)
		for i := range a {
			a[i] = words[rng.IntN(15)]
		}
		for i := range b {
			b[i] = words[5+rng.IntN(20)]
		}
		ra, wa := m.bag(a)
		rb, wb := m.bag(b)
		full := m.transport(ra, wa, rb, wb)
		if got := m.Measure(a, b); math.Abs(got-full) > 1e-9*math.Max(1, full) {
			t.Fatalf("trial %d: WMD with cancellation %v, full problem %v", trial, got, full)
		}
	}
	if got := m.Measure([]string{"w1", "w2", "w1"}, []string{"w2", "w1", "w1"}); got != 0 {
		t.Errorf("identical bags: %v, want 0", got)
	}
}

// A centred cosine over vectors that all equal their mean (one word, as top_k = 1 gives, or
// identical vectors) has no defined value for any document: NewMeanCosine refuses it, naming
// the cause and the remedies, instead of a scorer whose every score is NaN; uncentred, the same
// vectors are accepted. The mutant: without allAtCenter the constructor succeeds and Measure
// returns NaN.
func TestMeanCosineRefusesVectorsAllAtTheirMean(t *testing.T) {
	for _, c := range []struct {
		words []string
		vecs  []float32
	}{
		{[]string{"one"}, []float32{0.3, -1}},
		{[]string{"a", "b", "c"}, []float32{1, 2, 1, 2, 1, 2}},
	} {
		store, err := embeddings.New(c.words, 2, c.vecs)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewMeanCosine(store, CosineOptions{Centered: true}); err == nil || !strings.Contains(err.Error(), "centered = false") {
			t.Errorf("%v centred: err = %v; want a refusal", c.words, err)
		}
		m, err := NewMeanCosine(store, CosineOptions{Centered: false})
		if err != nil {
			t.Fatalf("%v uncentred: %v", c.words, err)
		}
		if v := m.Measure(c.words, c.words); v < 0.999 || v > 1.001 {
			t.Errorf("%v uncentred: cosine of a document with itself %v, want 1", c.words, v)
		}
	}
}
