package expmech

import (
	"fmt"
	"testing"

	"dptext/internal/ngram"
	"dptext/internal/rngs"
)

// Tokens per second of ExpMech over a 20,000-word, 100-dimensional vocabulary on Zipf-
// distributed documents of 400 tokens (the Fernandes protocol's size), cache of 256 rows.
func BenchmarkExpMech20k(b *testing.B) {
	store := expMechGoldenStore(b, 20000, 100)
	docs := expMechZipfDocs(store, 5, 50, 400)
	lm, err := ngram.TrainBidirectional(store.Words(), expMechZipfDocs(store, 6, 200, 1000), ngram.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		modify func(*ExpMechOptions)
	}{
		{"rating=embedding", func(*ExpMechOptions) {}},
		{"rating=embedding/cache=0", func(o *ExpMechOptions) { o.CacheRows = 0 }},
		{"rating=embedding/candidates=50", func(o *ExpMechOptions) { o.Candidates, o.CandidateEpsilon = 50, 5 }},
		{"rating=context", func(o *ExpMechOptions) { o.Rating, o.Context = ExpMechRatingContext, lm }},
		{"rating=random", func(o *ExpMechOptions) { o.Rating = ExpMechRatingRandom }},
	} {
		opts := DefaultExpMechOptions()
		c.modify(&opts)
		m, err := NewExpMech(store, 20, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			tokens := 0
			for i := 0; b.Loop(); i++ {
				doc := docs[i%len(docs)]
				m.Apply(rngs.New(1, fmt.Sprint(i)), doc)
				tokens += len(doc)
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
