package attackers

import (
	"strings"
	"testing"

	"dptext/internal/learn"
)

func TestNewWritePrintsRejectsBadOptions(t *testing.T) {
	cases := []struct {
		key    string
		modify func(*WritePrintsOptions)
	}{
		{"classifier", func(o *WritePrintsOptions) { o.Classifier = "knn" }},
		{"top_ngrams", func(o *WritePrintsOptions) { o.TopNgrams = -1 }},
		{"c", func(o *WritePrintsOptions) { o.SVM.C = 0 }},
		{"alpha", func(o *WritePrintsOptions) { o.Classifier = "nb"; o.NB.Alpha = 0 }},
	}
	for _, c := range cases {
		opts := DefaultWritePrintsOptions()
		c.modify(&opts)
		_, err := NewWritePrints(opts)
		if err == nil || !strings.Contains(err.Error(), c.key+" = ") {
			t.Errorf("%s: error %v, want one naming the key", c.key, err)
		}
	}
}

func TestWritePrintsFindsAuthorsAndFallsToChance(t *testing.T) {
	for _, clf := range []string{"svm", "nb"} {
		t.Run(clf, func(t *testing.T) {
			checkAttacker(t, "writeprints-"+clf, func() learn.Classifier {
				opts := DefaultWritePrintsOptions()
				opts.Classifier = clf
				w, err := NewWritePrints(opts)
				if err != nil {
					t.Fatal(err)
				}
				return w
			})
		})
	}
}

func TestLetterNgramsStayInsideWords(t *testing.T) {
	var got []string
	eachLetterNgram([]string{"Ab-c", "de"}, 2, func(g string) { got = append(got, g) })
	if strings.Join(got, " ") != "ab de" {
		t.Errorf("bigrams of Ab-c de: %v, want [ab de]", got)
	}
}

func benchWritePrints(b *testing.B, clf string) {
	c := benchCorpus()
	opts := DefaultWritePrintsOptions()
	opts.Classifier = clf
	w, _ := NewWritePrints(opts)
	b.Run("fit", func(b *testing.B) {
		for b.Loop() {
			if err := w.Fit(rngsFor("fit"), c.known, c.knownAuthor); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("predict", func(b *testing.B) {
		for b.Loop() {
			w.Predict(nil, c.unknown)
		}
	})
}

func BenchmarkWritePrintsSVM(b *testing.B) { benchWritePrints(b, "svm") }
func BenchmarkWritePrintsNB(b *testing.B)  { benchWritePrints(b, "nb") }
