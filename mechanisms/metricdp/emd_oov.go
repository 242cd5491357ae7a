package metricdp

import (
	"sync"

	"dptext/embeddings"
)

// nearestKnown maps out-of-vocabulary words to vocabulary words for the "nearest-known" policy:
// the word at the smallest Levenshtein distance (insertions, deletions and substitutions of
// Unicode code points, each costing 1), ties going to the most frequent (lowest row).
//
// Why edit distance: the mapping must not look at the document (it is applied before the noise,
// so it has to be a fixed function of the word for the εN·E_d bound to hold for the mapped
// bags), and the words it sees are mostly misspellings, inflections and names, which edit
// distance sends to the intended or a similar-looking word ("snape" → "shape"), keeping the
// bag's size and most of its content. Replacing every unknown word by one fixed token would also
// be private but would make all of them identical. Either way the unknown word itself can never
// be output.
//
// Results are cached: the mapping is a pure function of the word.
type nearestKnown struct {
	words [][]rune // vocabulary in row order
	cache sync.Map // string → int
}

func newNearestKnown(store *embeddings.Store) *nearestKnown {
	words := make([][]rune, store.Len())
	for i, w := range store.Words() {
		words[i] = []rune(w)
	}
	return &nearestKnown{words: words}
}

// lookup returns the row of the vocabulary word nearest to w in edit distance.
func (n *nearestKnown) lookup(w string) int {
	if row, ok := n.cache.Load(w); ok {
		return row.(int)
	}
	target := []rune(w)
	best, bestDist := 0, len(target)+len(n.words[0])+1
	prev, cur := make([]int, 0, 64), make([]int, 0, 64)
	for row, cand := range n.words {
		if lengthGap(len(cand), len(target)) >= bestDist {
			continue // the length difference alone is no better
		}
		if d := boundedLevenshtein(target, cand, bestDist, &prev, &cur); d < bestDist {
			best, bestDist = row, d
			if d == 0 {
				break
			}
		}
	}
	n.cache.Store(w, best)
	return best
}

// boundedLevenshtein returns the edit distance of a and b if it is below limit, and limit
// otherwise (it stops as soon as every entry of a row of the dynamic program reaches limit).
// prev and cur are reusable row buffers.
func boundedLevenshtein(a, b []rune, limit int, prev, cur *[]int) int {
	p := reuseSlice(*prev, len(b)+1)
	c := reuseSlice(*cur, len(b)+1)
	for j := range p {
		p[j] = j
	}
	for i := 1; i <= len(a); i++ {
		c[0] = i
		rowMin := c[0]
		for j := 1; j <= len(b); j++ {
			sub := p[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			c[j] = min(sub, p[j]+1, c[j-1]+1)
			rowMin = min(rowMin, c[j])
		}
		if rowMin >= limit {
			*prev, *cur = p, c
			return limit
		}
		p, c = c, p
	}
	*prev, *cur = p, c
	return min(p[len(b)], limit)
}

// lengthGap is |a − b|, a lower bound on the edit distance of words of lengths a and b.
func lengthGap(a, b int) int {
	if a < b {
		return b - a
	}
	return a - b
}
