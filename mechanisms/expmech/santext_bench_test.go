package expmech

import (
	"fmt"
	"math"
	"testing"

	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/internal/rowcache"
)

// Tokens per second of the sampling mechanisms over a 20,000-word, 100-dimensional vocabulary
// on Zipf-distributed documents of 400 tokens, cache of 256 rows (as BenchmarkExpMech20k).
func BenchmarkSampling20k(b *testing.B) {
	store := expMechGoldenStore(b, 20000, 100)
	docs := expMechZipfDocs(store, 5, 50, 400)
	san, _ := NewSanText(store, 10, DefaultSanTextOptions())
	plus, _ := NewSanText(store, 10, DefaultSanTextPlusOptions())
	tem, _ := NewTEM(store, 10, DefaultTEMOptions())
	sets := CusTextSets(store, 20)
	cus, _ := NewCusText(store, 10, DefaultCusTextOptions(), sets)
	for _, c := range []struct {
		name string
		m    mechanisms.Mechanism
	}{{"santext", san}, {"santext+", plus}, {"tem", tem}, {"custext", cus}} {
		b.Run(c.name, func(b *testing.B) {
			tokens := 0
			for i := 0; b.Loop(); i++ {
				doc := docs[i%len(docs)]
				c.m.Apply(rngs.New(1, fmt.Sprint(i)), doc)
				tokens += len(doc)
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// Distance rows of the sampling mechanisms over a 20,000 × 100 vocabulary: one row at a time
// (the path before batching) against four rows per pass (ratingsBatch), in one run.
func BenchmarkDistanceRows20k(b *testing.B) {
	store := expMechGoldenStore(b, 20000, 100)
	e := &distanceEM{store: store, epsilon: 10, gamma: math.Inf(1), cache: rowcache.New(0)}
	xs := []int{11, 4000, 123, 19999, 7, 800, 15000, 42}
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			for _, x := range xs {
				e.ratings(x)
			}
		}
		b.ReportMetric(float64(b.N*len(xs))/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("batch4", func(b *testing.B) {
		for b.Loop() {
			e.ratingsBatch(xs)
		}
		b.ReportMetric(float64(b.N*len(xs))/b.Elapsed().Seconds(), "rows/s")
	})
}
