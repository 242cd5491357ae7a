package mechanisms

import (
	"fmt"
	"math/rand/v2"
	"time"

	"dptext/embeddings"
	"dptext/rngs"
)

// BenchmarkDecode measures the decoder's throughput in words per second (the number behind
// `dptext bench decode`): it decodes queries noisy vectors (random vocabulary words plus EMD
// noise at ε = 10) in batches of 400, the size of one document, after one untimed warm-up
// batch. store may be nil, in which case the vocabulary is topK random standard normal vectors
// of dimension 100 (decoding cost does not depend on the values); otherwise it is store's topK
// most frequent words (0: all). Compare with bench/decode_reference.py at equal settings.
func BenchmarkDecode(store *embeddings.Store, topK, queries, workers int, seed uint64) (wordsPerSecond float64, err error) {
	if queries <= 0 {
		return 0, fmt.Errorf("bench decode: queries = %d: want > 0", queries)
	}
	rng := rngs.New(seed, "bench/decode")
	if store == nil {
		if topK <= 0 {
			return 0, fmt.Errorf("bench decode: top_k = %d: a random vocabulary needs a size > 0", topK)
		}
		if store, err = normalStore(rng, numberedWords("w%d", topK), 100, 1); err != nil {
			return 0, err
		}
	}
	store = store.TopK(topK)
	dec, err := NewDecoder(store, workers)
	if err != nil {
		return 0, err
	}
	const batch = 400
	dim := store.Dim()
	z := make([]float64, min(batch, queries)*dim)
	direction := make([]float64, dim)
	dst := make([]int, min(batch, queries))
	fill := func(n int) {
		for i := range n {
			radius := laplaceRadius(rng, dim, 10)
			sphereDirection(rng, direction)
			for t, x := range store.Vector(rng.IntN(store.Len())) {
				z[i*dim+t] = float64(x) + radius*direction[t]
			}
		}
	}
	fill(len(dst))
	dec.Decode(z, dst) // warm-up
	var elapsed time.Duration
	for done := 0; done < queries; done += batch {
		n := min(batch, queries-done)
		fill(n)
		start := time.Now()
		dec.Decode(z[:n*dim], dst[:n])
		elapsed += time.Since(start)
	}
	return float64(queries) / elapsed.Seconds(), nil
}

// normalStore returns a store of words whose vectors of dimension dim are standard normal
// draws from rng (row by row) times scale.
func normalStore(rng *rand.Rand, words []string, dim int, scale float64) (*embeddings.Store, error) {
	vecs := make([]float32, len(words)*dim)
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64() * scale)
	}
	return embeddings.New(words, dim, vecs)
}

// numberedWords returns the n words fmt.Sprintf(format, i), i = 0…n−1.
func numberedWords(format string, n int) []string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf(format, i)
	}
	return words
}
