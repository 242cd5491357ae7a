package utility

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"dptext/embeddings"
)

func TestGreedyF1(t *testing.T) {
	var m PairMetric
	m, err := NewGreedyF1(plane(t), nil, GreedyF1Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b []string
		want float64
	}{
		{[]string{"a"}, []string{"c"}, 1 / math.Sqrt2},                        // P = R = cos(a, c)
		{[]string{"a", "b"}, []string{"a"}, 2.0 / 3},                          // R = ½, P = 1
		{[]string{"a", "b"}, []string{"b", "a"}, 1},                           // order does not matter
		{[]string{"zz", "a"}, []string{"zz", "b"}, 0.5},                       // zz has no vector: it matches only itself
		{[]string{"a", "a", "b"}, []string{"a"}, 2 * (2.0 / 3) / (1 + 2.0/3)}, // occurrences count
	}
	for _, c := range cases {
		if got := m.Measure(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("embf1(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := m.Measure([]string{"a"}, nil); !math.IsNaN(got) {
		t.Errorf("empty release gave %v, want NaN", got)
	}
	// BERTScore's idf over the reference [[a] [a] [b]]: M = 3, df(a) = 2, df(b) = 1, so
	// idf(a) = ln(4/3), idf(b) = ln 2 (dptext's v1 added 1 to each: the mutant this catches).
	w, err := NewGreedyF1(plane(t), [][]string{{"a"}, {"a"}, {"b"}}, GreedyF1Options{IDF: true})
	if err != nil {
		t.Fatal(err)
	}
	ia, ib := math.Log(4.0/3), math.Log(2)
	r := ia / (ia + ib)
	if got, want := w.Measure([]string{"a", "b"}, []string{"a"}), 2*r/(1+r); math.Abs(got-want) > 1e-12 {
		t.Errorf("idf-weighted embf1 = %v, want %v", got, want)
	}
	// A word in every reference document weighs 0: a document of only such words has no
	// weight to average over.
	z, err := NewGreedyF1(plane(t), [][]string{{"a"}, {"a", "b"}}, GreedyF1Options{IDF: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := z.Measure([]string{"a"}, []string{"a"}); !math.IsNaN(got) {
		t.Errorf("embf1 of documents whose every word weighs 0 = %v, want NaN", got)
	}
	if _, err := NewGreedyF1(nil, nil, DefaultGreedyF1Options()); err == nil {
		t.Error("nil store accepted by embf1")
	}
}

func TestChrF(t *testing.T) {
	var m PairMetric
	m, err := NewChrF(DefaultChrFOptions())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b []string
		want float64
	}{
		{[]string{"ab", "cd"}, []string{"ab", "cd"}, 1},
		{[]string{"ab"}, []string{"a", "b"}, 1}, // whitespace is not part of the score
		// Orders 1 and 2: P = R = (1 + 0)/2.
		{[]string{"ab"}, []string{"ba"}, 0.5},
		// Orders 1–3: P = (1 + 1 + 0)/3 = 2/3, R = (2/3 + 1/2 + 0)/3 = 7/18; F₂ = 14/33.
		{[]string{"abc"}, []string{"ab"}, 14.0 / 33},
		{[]string{"abc"}, nil, 0},
	}
	for _, c := range cases {
		if got := m.Measure(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("chrf(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := m.Measure(nil, []string{"a"}); !math.IsNaN(got) {
		t.Errorf("empty original gave %v, want NaN", got)
	}
	for _, o := range []ChrFOptions{{MaxOrder: 0, Beta: 2}, {MaxOrder: 6, Beta: 0}, {MaxOrder: 6, Beta: math.NaN()}} {
		if _, err := NewChrF(o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// replaceWords is a synthetic mechanism: each word is replaced, with probability q, by a
// uniformly drawn vocabulary word.
func replaceWords(rng *rand.Rand, words []string, doc []string, q float64) []string {
	out := make([]string, len(doc))
	for i, w := range doc {
		out[i] = w
		if rng.Float64() < q {
			out[i] = words[rng.IntN(len(words))]
		}
	}
	return out
}

// topicStore is a vocabulary of 2,000 words in 16 dimensions whose vectors share a common
// component (as GloVe's do) and one of 4 topic directions, and documents of 200 words, each
// drawn from the first 500 words of one topic with Zipf-like frequencies.
func topicStore(t *testing.T) (*embeddings.Store, []string, [][]string) {
	const n, dim, topics = 2000, 16, 4
	rng := rand.New(rand.NewPCG(29, 1))
	words := make([]string, n)
	vecs := make([]float32, n*dim)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
		for k := 0; k < dim; k++ {
			x := 0.5*rng.NormFloat64() + 2 // the common component
			if k == i%topics {
				x += 2
			}
			vecs[i*dim+k] = float32(x)
		}
	}
	store, err := embeddings.New(words, dim, vecs)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([][]string, 40)
	for d := range docs {
		doc := make([]string, 200)
		for i := range doc {
			r := int(math.Exp(rng.Float64() * math.Log(125))) // 1…125, Zipf-like
			doc[i] = words[(r-1)*topics+d%topics]
		}
		docs[d] = doc
	}
	return store, words, docs
}

// meanScores returns the mean of m over docs privatised by replaceWords at each share q.
func meanScores(m PairMetric, words []string, docs [][]string, qs []float64) []float64 {
	out := make([]float64, len(qs))
	for k, q := range qs {
		rng := rand.New(rand.NewPCG(7, uint64(k)))
		for _, d := range docs {
			out[k] += m.Measure(d, replaceWords(rng, words, d, q))
		}
		out[k] /= float64(len(docs))
	}
	return out
}

// embf1 and chrf fall at every step as a synthetic mechanism replaces 0, 20, …, 100 % of the
// words by uniformly drawn ones. The seeds are fixed, so the test is deterministic; it asserts
// a fall of at least 0.02 per step, where the measured falls are 0.08 or more (embf1 1.000,
// 0.883, 0.787, 0.709, 0.634, 0.551; chrf 1.000, 0.780, 0.615, 0.490, 0.392, 0.318). The
// mutant, a measure that compares the original with itself instead of with the release, stays
// at 1 and fails the same check. The centred mean cosine is logged beside them: 1.000, 0.998,
// 0.994, 0.979, 0.896, −0.004 — it hardly moves until most words are gone.
func TestMeasuresFallAsWordsAreReplaced(t *testing.T) {
	store, words, docs := topicStore(t)
	qs := []float64{0, 0.2, 0.4, 0.6, 0.8, 1}
	f1, err := NewGreedyF1(store, docs, DefaultGreedyF1Options())
	if err != nil {
		t.Fatal(err)
	}
	chrf, _ := NewChrF(DefaultChrFOptions())
	cos, _ := NewMeanCosine(store, DefaultCosineOptions())
	falls := func(name string, m PairMetric) error {
		s := meanScores(m, words, docs, qs)
		t.Logf("%s: %.3f", name, s)
		for k := 1; k < len(s); k++ {
			if !(s[k] < s[k-1]-0.02) {
				return fmt.Errorf("%s at %.0f %% replaced = %.4f, not below %.4f − 0.02 at %.0f %%", name, 100*qs[k], s[k], s[k-1], 100*qs[k-1])
			}
		}
		return nil
	}
	for name, m := range map[string]PairMetric{"embf1": f1, "chrf": chrf} {
		if err := falls(name, m); err != nil {
			t.Error(err)
		}
	}
	t.Logf("cosine: %.3f", meanScores(cos, words, docs, qs))
	if err := falls("mutant", selfCompare{f1}); err == nil {
		t.Error("a measure that ignores the release passed the check")
	}
}

// selfCompare is the mutant: it scores the original against itself.
type selfCompare struct{ m PairMetric }

func (s selfCompare) Measure(original, _ []string) float64 { return s.m.Measure(original, original) }
