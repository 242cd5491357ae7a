package utility

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sync"

	"dptext/embeddings"
	"dptext/internal/linalg"
)

// GreedyF1 is BERTScore's greedy-matching F1 (Zhang, Kishore, Wu, Weinberger and Artzi, ICLR
// 2020, Sect. 3) computed with static word vectors instead of contextual ones (scorer
// embf1). Each word of the original is matched to its most similar word of the release and
// vice versa:
//
//	R = Σ_{x∈orig} idf(x)·max_{y∈priv} s(x,y) / Σ_{x∈orig} idf(x)
//	P = Σ_{y∈priv} idf(y)·max_{x∈orig} s(x,y) / Σ_{y∈priv} idf(y)
//	F1 = 2PR / (P + R)
//
// over token occurrences (a repeated word counts each time). The similarity s is the cosine
// of the two words' vectors (centred on the vocabulary's mean by default); a word without a
// vector matches only itself (s = 1 with the same string, else 0), so a name carried over
// counts as kept and a changed one as lost. The weights are BERTScore's inverse document
// frequencies idf(w) = ln((M + 1)/(df(w) + 1)) over a reference collection of M documents
// (a word absent from it: ln(M + 1); a word in every document weighs 0), as bert_score
// computes them; the run hands in its topic-training documents, which are by authors outside
// the evaluation set. With no reference collection every weight is 1. A word that is dropped or replaced by
// an unrelated one lowers R, an inserted unrelated word lowers P; with negative cosines
// (centred vectors) a term can be below 0, so F1 lies in [−1, 1] and is 1 exactly when every
// word is matched by an identical one. It is NaN when either document is empty or all its
// words weigh 0 (each occurs in every reference document: no weight to average over).
type GreedyF1 struct {
	store *embeddings.Store
	// unit holds the (centred) vectors scaled to unit length, row-major.
	unit []float64
	idf  map[string]float64
	// idfUnseen is the weight of a word absent from the reference collection.
	idfUnseen float64

	// originals keeps the original documents measured, by a hash of their words: a run measures
	// every mechanism's release of a document against the same original, and the release's
	// words that are also the original's (most, where a mechanism keeps words) take their
	// products from the original's Gram matrix instead of new ones. At most
	// maxCachedProducts products are kept; past that, originals are measured afresh.
	mu        sync.Mutex
	seed      maphash.Seed
	originals map[uint64][]*originalBag
	kept      int // products held by originals
	maxKept   int // maxCachedProducts (tests lower it)
}

// maxCachedProducts bounds the products one GreedyF1 keeps (8 bytes each: 128 MB; a cell of
// configs/mechanisms.toml measures 420 originals of about 140 distinct words, 8M products).
const maxCachedProducts = 16 << 20

// originalBag is an original document's bag with the products of its distinct words' unit
// vectors: gram[i·n + k] for words i and k that both have a vector (n distinct words), and at,
// the position of each vector row among its words.
type originalBag struct {
	doc  []string // the document's words (a copy), to tell hash collisions
	bag  bag
	at   map[int]int
	gram []float64
}

// GreedyF1Options configure GreedyF1.
type GreedyF1Options struct {
	// Centered subtracts the vocabulary's mean vector before the cosine, as cosine's option of
	// the same name (default true): raw GloVe vectors share a common component that puts the
	// plain cosine of two unrelated words near 0.2–0.3 rather than near 0.
	Centered bool `toml:"centered"`
	// IDF weights words by their inverse document frequency in the reference collection
	// (default true); false weights every word 1.
	IDF bool `toml:"idf"`
}

// DefaultGreedyF1Options: centred vectors, idf weights.
func DefaultGreedyF1Options() GreedyF1Options { return GreedyF1Options{Centered: true, IDF: true} }

// NewGreedyF1 returns the greedy-matching F1 over store's vectors with idf weights from the
// reference documents (normalised token sequences; nil: all weights 1).
func NewGreedyF1(store *embeddings.Store, reference [][]string, opts GreedyF1Options) (*GreedyF1, error) {
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("embf1: no word vectors")
	}
	dim := store.Dim()
	center := make([]float64, dim)
	if opts.Centered {
		for i := 0; i < store.Len(); i++ {
			for j, x := range store.Vector(i) {
				center[j] += float64(x)
			}
		}
		for j := range center {
			center[j] /= float64(store.Len())
		}
	}
	unit := make([]float64, store.Len()*dim)
	for i := 0; i < store.Len(); i++ {
		row := unit[i*dim : (i+1)*dim]
		var n float64
		for j, x := range store.Vector(i) {
			row[j] = float64(x) - center[j]
			n += row[j] * row[j]
		}
		if n > 0 {
			n = 1 / math.Sqrt(n)
			for j := range row {
				row[j] *= n
			}
		}
	}
	g := &GreedyF1{store: store, unit: unit, idf: map[string]float64{}, idfUnseen: 1, seed: maphash.MakeSeed(), originals: map[uint64][]*originalBag{}, maxKept: maxCachedProducts}
	if opts.IDF && len(reference) > 0 {
		df := map[string]int{}
		for _, doc := range reference {
			seen := map[string]bool{}
			for _, w := range doc {
				if !seen[w] {
					seen[w] = true
					df[w]++
				}
			}
		}
		m := float64(len(reference))
		for w, n := range df {
			g.idf[w] = math.Log((m + 1) / (float64(n) + 1))
		}
		g.idfUnseen = math.Log(m + 1)
	}
	return g, nil
}

// weight returns idf(w).
func (g *GreedyF1) weight(w string) float64 {
	if x, ok := g.idf[w]; ok {
		return x
	}
	return g.idfUnseen
}

// Measure returns the idf-weighted greedy-matching F1 of private against original.
func (g *GreedyF1) Measure(original, private []string) float64 {
	if len(original) == 0 || len(private) == 0 {
		return math.NaN()
	}
	o := g.original(original)
	a, b := o.bag, g.distinct(private)
	// best[i] is the best similarity of a's word i to any word of b, and bestB the converse.
	bestA := make([]float64, len(a.words))
	bestB := make([]float64, len(b.words))
	for i := range bestA {
		bestA[i] = math.Inf(-1)
	}
	for j := range bestB {
		bestB[j] = math.Inf(-1)
	}
	g.bestMatches(o, b, bestA, bestB)
	r := g.weighted(a, bestA)
	p := g.weighted(b, bestB)
	if math.IsNaN(r) || math.IsNaN(p) {
		return math.NaN()
	}
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// original returns doc's bag with its Gram matrix, from originals when doc was measured before.
func (g *GreedyF1) original(doc []string) *originalBag {
	var h maphash.Hash
	h.SetSeed(g.seed)
	for _, w := range doc {
		h.WriteString(w)
		h.WriteByte(0) // a separator (a collision is told by comparing the words)
	}
	key := h.Sum64()
	g.mu.Lock()
	for _, o := range g.originals[key] {
		if slices.Equal(o.doc, doc) {
			g.mu.Unlock()
			return o
		}
	}
	g.mu.Unlock()
	a := g.distinct(doc)
	n, dim := len(a.words), g.store.Dim()
	o := &originalBag{doc: slices.Clone(doc), bag: a, at: make(map[int]int, n), gram: make([]float64, n*n)}
	vectors := make([][]float64, n) // nil for a word without a vector: its products are not read
	for i, r := range a.rows {
		if r >= 0 {
			o.at[r] = i
			vectors[i] = g.unit[r*dim : (r+1)*dim : (r+1)*dim]
		}
	}
	products := linalg.NewDotProducts(vectors, dim)
	for i, v := range vectors {
		if v != nil {
			copy(o.gram[i*n:(i+1)*n], products.Of(v))
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, other := range g.originals[key] {
		if slices.Equal(other.doc, doc) { // built meanwhile by another goroutine
			return other
		}
	}
	if g.kept+n*n <= g.maxKept {
		g.originals[key] = append(g.originals[key], o)
		g.kept += n * n
	}
	return o
}

// bestMatches raises bestA[i] and bestB[j] to the similarity s of word i of the original a and
// word j of b (math.Max), for every pair: s = 1 for the same word, 0 when either has no vector,
// else the dot product of their unit vectors summed in dimension order — from a's Gram matrix
// when b's word is also one of a's, else computed: b's other vectors are laid out by dimension
// sixteen at a time and each word of a meets sixteen of them per call of linalg.Dots16, whose
// sums are those of the plain loop bit for bit (TestGreedySimilaritiesEqualThePlainLoop);
// where the CPU has no kernel the plain loop runs.
func (g *GreedyF1) bestMatches(o *originalBag, b bag, bestA, bestB []float64) {
	a, n, dim := o.bag, len(o.bag.words), g.store.Dim()
	vec := func(row int) []float64 { return g.unit[row*dim : (row+1)*dim : (row+1)*dim] }
	// column[j]: for a word of b with a vector, its position among a's words (≥ 0) or −1 −
	// its index among the fresh vectors; unused for a word without one.
	column := make([]int, len(b.rows))
	var fresh [][]float64
	for j, r := range b.rows {
		if r < 0 {
			continue
		}
		if k, ok := o.at[r]; ok {
			column[j] = k
		} else {
			column[j] = -1 - len(fresh)
			fresh = append(fresh, vec(r))
		}
	}
	products := linalg.NewDotProducts(fresh, dim)
	var dots []float64
	for i, wa := range a.words {
		ra := a.rows[i]
		if ra >= 0 && len(fresh) > 0 {
			dots = products.Of(vec(ra))
		}
		gram := o.gram[i*n : (i+1)*n]
		// A word with a vector is the same word exactly when it has the same row.
		best := bestA[i]
		for j, rb := range b.rows {
			var s float64
			switch {
			case ra >= 0 && rb == ra, ra < 0 && wa == b.words[j]:
				s = 1
			case ra < 0 || rb < 0:
				s = 0
			case column[j] >= 0:
				s = gram[column[j]]
			default:
				s = dots[-1-column[j]]
			}
			best, bestB[j] = maxOf(best, s), maxOf(bestB[j], s)
		}
		bestA[i] = best
	}
}

// maxOf is math.Max(x, y), with the strict comparisons first: math.Max's rules for NaN and
// signed zeros apply only when neither is larger.
func maxOf(x, y float64) float64 {
	if x > y {
		return x
	}
	if y > x {
		return y
	}
	return math.Max(x, y)
}

// weighted returns Σ count·idf·best / Σ count·idf over the distinct words of d (NaN when
// every weight is 0).
func (g *GreedyF1) weighted(d bag, best []float64) float64 {
	var num, den float64
	for i, w := range d.words {
		x := float64(d.counts[i]) * g.weight(w)
		num += x * best[i]
		den += x
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// bag is a document's distinct words in order of first occurrence, with their counts and
// vector rows (−1: no vector).
type bag struct {
	words  []string
	counts []int
	rows   []int
}

func (g *GreedyF1) distinct(doc []string) bag {
	var d bag
	pos := map[string]int{}
	for _, w := range doc {
		p, ok := pos[w]
		if !ok {
			p = len(d.words)
			pos[w] = p
			r, known := g.store.Lookup(w)
			if !known {
				r = -1
			}
			d.words, d.counts, d.rows = append(d.words, w), append(d.counts, 0), append(d.rows, r)
		}
		d.counts[p]++
	}
	return d
}
