package distinguish

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
)

// Pair is one x with the document of another author its neighbours take words from.
type Pair struct {
	// X and Other have the same length; Other is by another author than X.
	X, Other []string
	// Cluster identifies the unit the bootstrap resamples (X's author).
	Cluster int
	// Index is X's position among the documents Pairs drew it from.
	Index int
	// Order lists, in a random order, the positions where X and Other differ: x′ at distance k
	// takes Other's words at the first k of them.
	Order []int
}

// NewPair is the pair of x and other (of equal length), their differing positions shuffled with
// rng.
func NewPair(x, other []string, cluster int, rng *rand.Rand) (Pair, error) {
	if len(x) != len(other) {
		return Pair{}, fmt.Errorf("distinguish: documents of %d and %d words: want equal lengths", len(x), len(other))
	}
	var order []int
	for i := range x {
		if x[i] != other[i] {
			order = append(order, i)
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return Pair{X: x, Other: other, Cluster: cluster, Order: order}, nil
}

// Neighbour is x′ at distance k: Other for Whole, else X with Other's words at the first
// min(k, len(Order)) positions of Order (all of them when the documents differ in fewer than k).
func (p Pair) Neighbour(k int) []string {
	if k == Whole {
		return p.Other
	}
	out := slices.Clone(p.X)
	for _, i := range p.Order[:min(k, len(p.Order))] {
		out[i] = p.Other[i]
	}
	return out
}

// Pairs draws n pairs from docs (authors[i] wrote docs[i]), each document cut to its first words
// words: the x are n different documents spread evenly over the authors (the j-th document of
// every author, in a random order, before the (j+1)-th of any), each with a partner drawn
// uniformly from the documents of the other authors; a pair's cluster is its x's author (index
// among the sorted authors).
func Pairs(docs [][]string, authors []string, n, words int, rng *rand.Rand) ([]Pair, error) {
	if len(docs) != len(authors) {
		return nil, fmt.Errorf("distinguish: %d documents, %d authors", len(docs), len(authors))
	}
	names := slices.Compact(slices.Sorted(slices.Values(authors)))
	switch {
	case len(names) < 2:
		return nil, fmt.Errorf("distinguish: %d author(s): want at least 2 (x′ takes another author's words)", len(names))
	case n > len(docs):
		return nil, fmt.Errorf("distinguish: pairs = %d: the set has only %d documents to be x", n, len(docs))
	}
	for i, d := range docs {
		if len(d) < words {
			return nil, fmt.Errorf("distinguish: document %d (of %s) has %d words: want at least words = %d", i, authors[i], len(d), words)
		}
	}
	cluster := map[string]int{}
	for i, a := range names {
		cluster[a] = i
	}
	perm := rng.Perm(len(docs))
	rank := make([]int, len(docs))
	seen := map[string]int{}
	for _, i := range perm {
		rank[i] = seen[authors[i]]
		seen[authors[i]]++
	}
	sort.SliceStable(perm, func(a, b int) bool { return rank[perm[a]] < rank[perm[b]] })
	pairs := make([]Pair, n)
	for j, i := range perm[:n] {
		var others []int
		for o := range docs {
			if authors[o] != authors[i] {
				others = append(others, o)
			}
		}
		o := others[rng.IntN(len(others))]
		p, err := NewPair(docs[i][:words], docs[o][:words], cluster[authors[i]], rng)
		if err != nil {
			return nil, err
		}
		p.Index = i
		pairs[j] = p
	}
	return pairs, nil
}
