package mechanisms

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"dptext/embeddings"
)

// randomStore returns a store of n words w0, w1, … with standard normal vectors of dimension
// dim, scaled.
func randomStore(tb testing.TB, rng *rand.Rand, n, dim int, scale float64) *embeddings.Store {
	tb.Helper()
	return mustNormalStore(tb, rng, numberedWords("w%d", n), dim, scale)
}

// mustNormalStore returns a store of words whose vectors of dimension dim are standard normal
// draws from rng (row by row) times scale, failing tb on an error.
func mustNormalStore(tb testing.TB, rng *rand.Rand, words []string, dim int, scale float64) *embeddings.Store {
	tb.Helper()
	vecs := make([]float32, len(words)*dim)
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64() * scale)
	}
	s, err := embeddings.New(words, dim, vecs)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// numberedWords returns the n words fmt.Sprintf(format, i), i = 0…n−1.
func numberedWords(format string, n int) []string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf(format, i)
	}
	return words
}
