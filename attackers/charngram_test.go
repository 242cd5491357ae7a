package attackers

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"dptext/internal/learn"
	"dptext/internal/rngs"
)

func rngsFor(path string) *rand.Rand { return rngs.New(1, path) }

func TestNewCharNgramRejectsBadOptions(t *testing.T) {
	cases := []struct {
		key    string
		modify func(*CharNgramOptions)
	}{
		{"ngram_min", func(o *CharNgramOptions) { o.NgramMin = 0 }},
		{"ngram_max", func(o *CharNgramOptions) { o.NgramMax = 1 }},
		{"min_df", func(o *CharNgramOptions) { o.Tfidf.MinDF = 0 }},
		{"c", func(o *CharNgramOptions) { o.SVM.C = -1 }},
	}
	for _, c := range cases {
		opts := DefaultCharNgramOptions()
		c.modify(&opts)
		_, err := NewCharNgram(opts)
		if err == nil || !strings.Contains(err.Error(), c.key+" = ") {
			t.Errorf("%s: error %v, want one naming the key", c.key, err)
		}
	}
}

func TestCharNgramsCrossSpaces(t *testing.T) {
	opts := DefaultCharNgramOptions()
	opts.NgramMin, opts.NgramMax = 2, 3
	c, _ := NewCharNgram(opts)
	got := c.ngrams([]string{"ab", "é"})
	want := []string{"ab", "b ", " é", "ab ", "b é"}
	if !slices.Equal(got, want) {
		t.Errorf("n-grams of ab é: %q, want %q", got, want)
	}
}

func TestCharNgramFindsAuthorsAndFallsToChance(t *testing.T) {
	checkAttacker(t, "char-ngram-svm", func() learn.Classifier {
		c, err := NewCharNgram(DefaultCharNgramOptions())
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

func BenchmarkCharNgram(b *testing.B) {
	c := benchCorpus()
	a, _ := NewCharNgram(DefaultCharNgramOptions())
	b.Run("fit", func(b *testing.B) {
		for b.Loop() {
			if err := a.Fit(rngsFor("fit"), c.known, c.knownAuthor); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("predict", func(b *testing.B) {
		for b.Loop() {
			a.Predict(nil, c.unknown)
		}
	})
}
