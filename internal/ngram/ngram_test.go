package ngram

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// zipfCorpus generates documents over vocab with a Zipf-like word distribution and some words
// outside the vocabulary, so that histories of every kind (seen, unseen, unknown) occur.
func zipfCorpus(vocab []string, docs, length int) [][]string {
	rng := rand.New(rand.NewPCG(7, 11))
	z := rand.NewZipf(rng, 1.2, 1, uint64(len(vocab)+5))
	out := make([][]string, docs)
	for d := range out {
		for range length {
			k := int(z.Uint64())
			if k >= len(vocab) {
				out[d] = append(out[d], "oov"+strings.Repeat("x", k-len(vocab)))
				continue
			}
			out[d] = append(out[d], vocab[k])
		}
	}
	return out
}

func testVocab(n int) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = "w" + string(rune('a'+i%26)) + strings.Repeat("z", i/26)
	}
	return v
}

func TestConditionalSumsToOneAndAgreesWithProb(t *testing.T) {
	vocab := testVocab(60)
	docs := zipfCorpus(vocab, 30, 80)
	histories := [][]string{nil, {"wa"}, {"wa", "wb"}, {"wb", "wa", "wc"}, {"oovx", "wa"},
		{"wzz", "wyz"}, {"never", "seen"}, docs[0][:10], docs[3][:41]}
	for order := 1; order <= 4; order++ {
		m, err := Train(vocab, docs, Options{Order: order, Discount: 0.75})
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]float64, len(vocab))
		for _, h := range histories {
			m.Conditional(dst, h)
			sum := 0.0
			for v, p := range dst {
				if !(p > 0) {
					t.Fatalf("order %d, history %q: P(%s) = %g, want > 0", order, h, vocab[v], p)
				}
				if q := m.Prob(vocab[v], h); math.Abs(p-q) > 1e-12 {
					t.Fatalf("order %d, history %q: Conditional %g ≠ Prob %g for %s", order, h, p, q, vocab[v])
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("order %d, history %q: probabilities sum to %.12f", order, h, sum)
			}
		}
	}
}

// A bigram model on the single document "a b a b" (vocabulary a, b, c; D = 0.5), worked by hand.
// Bigram counts with the start symbol S: (S a) 1, (a b) 2, (b a) 1. Continuation counts of the
// unigram level: a ← {S, b} = 2, b ← {a} = 1; total 3, 2 distinct words, so
// P1(a) = 1.5/3 + 0.5·2/3·1/3 = 11/18, P1(b) = 0.5/3 + 1/9 = 5/18, P1(c) = 1/9 = 2/18.
// After "a": c(a·) = 2, one follower, so P(b | a) = 1.5/2 + 0.5·1/2·5/18 = 59/72 and
// P(c | a) = 0.25·2/18 = 1/36.
func TestHandWorkedBigram(t *testing.T) {
	m, err := Train([]string{"a", "b", "c"}, [][]string{{"a", "b", "a", "b"}}, Options{Order: 2, Discount: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		w       string
		history []string
		want    float64
	}{
		{"b", []string{"a"}, 59.0 / 72}, {"c", []string{"a"}, 1.0 / 36}, {"a", []string{"a"}, 0.25 * 11 / 18},
		{"a", []string{"c"}, 11.0 / 18}, // "c" never seen as history: the unigram level
		{"a", nil, 0.5 + 0.5*11/18},     // start of a document: c(S·) = 1, followed by a once
	}
	for _, c := range cases {
		if got := m.Prob(c.w, c.history); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("P(%s | %q) = %.6f, want %.6f", c.w, c.history, got, c.want)
		}
	}
}

func TestBidirectionalSumsToOneAndReadsBothSides(t *testing.T) {
	vocab := []string{"red", "green", "blue", "apple", "grass", "sky", "the"}
	var docs [][]string
	for range 20 {
		docs = append(docs, []string{"red", "apple", "green", "grass", "blue", "sky"})
	}
	b, err := TrainBidirectional(vocab, docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if b.Window() != 2 {
		t.Fatalf("window %d, want 2", b.Window())
	}
	dst := make([]float64, len(vocab))
	doc := []string{"red", "apple", "XXX", "grass", "blue", "sky"}
	for i := range doc {
		b.Distribution(dst, doc, i)
		sum := 0.0
		for _, p := range dst {
			sum += p
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("position %d: sum %.12f", i, sum)
		}
	}
	b.Distribution(dst, doc, 2)
	if dst[1] < 0.9 {
		t.Fatalf("P(green | red apple _ grass blue) = %.3f, want > 0.9: %v", dst[1], dst)
	}
	// The left neighbours were never seen as a history: the right ones identify the word.
	b.Distribution(dst, []string{"sky", "sky", "XXX", "grass", "blue"}, 2)
	if dst[1] < 0.9 {
		t.Fatalf("P(green | sky sky _ grass blue) = %.3f, want > 0.9: %v", dst[1], dst)
	}
}

func TestTrainRejectsBadOptions(t *testing.T) {
	cases := []struct {
		vocab []string
		opts  Options
		want  string
	}{
		{[]string{"a"}, Options{Order: 0, Discount: 0.5}, "order = 0"},
		{[]string{"a"}, Options{Order: 5, Discount: 0.5}, "order = 5"},
		{[]string{"a"}, Options{Order: 2, Discount: 1}, "discount = 1"},
		{[]string{"a"}, Options{Order: 2, Discount: 0}, "discount = 0"},
		{nil, DefaultOptions(), "empty vocabulary"},
		{[]string{"a", "a"}, DefaultOptions(), `"a" appears twice`},
	}
	for _, c := range cases {
		if _, err := Train(c.vocab, nil, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Train(%q, %+v) error %v, want one containing %q", c.vocab, c.opts, err, c.want)
		}
	}
}

func BenchmarkBidirectionalDistribution20k(b *testing.B) {
	vocab := testVocab(20000)
	m, err := TrainBidirectional(vocab, zipfCorpus(vocab, 200, 1000), DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	doc := zipfCorpus(vocab, 1, 200)[0]
	dst := make([]float64, len(vocab))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Distribution(dst, doc, i%len(doc))
	}
}
