package metricdp

import (
	"fmt"
	"math"

	"dptext/embeddings"
	"dptext/internal/transport"
)

// BagDistance returns the Earth Mover's distance E_d between two equal-size bags of words, the
// metric of the EMD mechanism's guarantee: the minimum over perfect matchings of the summed
// Euclidean distances of matched word vectors (raw, unnormalised), divided by the bag size N.
// Two empty bags are at distance 0; bags of different sizes are an error.
//
// Out-of-vocabulary words follow the published "keep" policy, under which such a word passes
// through the mechanism unchanged: it is at distance 0 from the same word and infinitely far
// from every other word. Identical out-of-vocabulary words are therefore paired off first, and
// if any remain unpaired the distance is +Inf (the mechanism gives no bound between the two
// documents). For the "nearest-known" policy, map the words with the mechanism's vocabulary
// first; for "drop", remove them from both bags.
func BagDistance(store *embeddings.Store, a, b []string) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("emd: bag distance needs equal-size bags, got %d and %d words", len(a), len(b))
	}
	n := len(a)
	if n == 0 {
		return 0, nil
	}
	rowsA, oovA := splitByVocabulary(store, a)
	rowsB, oovB := splitByVocabulary(store, b)
	for w, c := range oovA {
		if oovB[w] != c {
			return math.Inf(1), nil
		}
	}
	if len(oovA) != len(oovB) {
		return math.Inf(1), nil
	}
	m := len(rowsA) // equals len(rowsB): same size and same out-of-vocabulary multiset
	total, _ := transport.Match(euclideanCosts(store, rowsA, rowsB), m)
	return total / float64(n), nil
}

// splitByVocabulary returns the rows of the in-vocabulary words of bag and the multiset of its
// out-of-vocabulary words.
func splitByVocabulary(store *embeddings.Store, bag []string) (rows []int, oov map[string]int) {
	oov = map[string]int{}
	for _, w := range bag {
		if row, ok := store.Lookup(w); ok {
			rows = append(rows, row)
		} else {
			oov[w]++
		}
	}
	return rows, oov
}
