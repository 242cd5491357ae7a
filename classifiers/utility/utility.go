// Package utility holds the utility metrics: measures over an (original, private) pair of
// normalised token sequences — cosine of mean embeddings, Word Mover's Distance, the change
// of a stylometric vector, chrF and the greedy-matching F1 of word vectors (scorers of task
// "utility"; the names a config may use are listed once, in registry.Scorers, which
// `dptext list` shows).
package utility

import (
	"fmt"
	"math"

	"dptext/embeddings"
	"dptext/internal/transport"
)

// A PairMetric compares a privatised document with its original (both normalised token
// sequences): the utility and stylometric-change scores of the ER-AE evaluation (Bo, Ding,
// Fung and Iqbal, Sect. 5).
type PairMetric interface {
	Measure(original, private []string) float64
}

// MeanCosine is the cosine similarity of the mean word vectors of the two documents (scorer
// cosine). It is NaN when either document has no in-vocabulary word, or when a centred mean is
// the zero vector (the runner counts such pairs as unscored).
type MeanCosine struct {
	store *embeddings.Store
	// center is subtracted from both means (the vocabulary's mean vector, or zeros).
	center []float64
}

// CosineOptions configure MeanCosine.
type CosineOptions struct {
	// Centered subtracts the vocabulary's mean vector from both document means before the
	// cosine. Raw GloVe vectors share a large common component, so the raw cosine of two
	// unrelated documents is already about 0.9; centred, it is near 0 (default true).
	Centered bool `toml:"centered"`
}

// DefaultCosineOptions: centred.
func DefaultCosineOptions() CosineOptions { return CosineOptions{Centered: true} }

// NewMeanCosine returns the mean-embedding cosine over store's vectors.
func NewMeanCosine(store *embeddings.Store, opts CosineOptions) (*MeanCosine, error) {
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("cosine: no word vectors")
	}
	center := make([]float64, store.Dim())
	if opts.Centered {
		for i := 0; i < store.Len(); i++ {
			for j, x := range store.Vector(i) {
				center[j] += float64(x)
			}
		}
		for j := range center {
			center[j] /= float64(store.Len())
		}
		if allAtCenter(store, center) {
			return nil, fmt.Errorf("cosine: centered = true, but each of the %d word vectors equals the vocabulary's mean (one word, e.g. top_k = 1, or identical vectors): every centred document mean is zero and no cosine is defined; give more distinct vectors or centered = false", store.Len())
		}
	}
	return &MeanCosine{store: store, center: center}, nil
}

// allAtCenter reports whether every vector of store equals center (as float32, the vectors'
// precision).
func allAtCenter(store *embeddings.Store, center []float64) bool {
	for i := 0; i < store.Len(); i++ {
		for j, x := range store.Vector(i) {
			if x != float32(center[j]) {
				return false
			}
		}
	}
	return true
}

// Measure returns cos(mean(original) − c, mean(private) − c), c the centre.
func (m *MeanCosine) Measure(original, private []string) float64 {
	a := make([]float64, m.store.Dim())
	b := make([]float64, m.store.Dim())
	if !m.store.MeanVector(original, a) || !m.store.MeanVector(private, b) {
		return math.NaN()
	}
	for j, c := range m.center {
		a[j] -= c
		b[j] -= c
	}
	var dot, na, nb float64
	for j := range a {
		dot += a[j] * b[j]
		na += a[j] * a[j]
		nb += b[j] * b[j]
	}
	return dot / math.Sqrt(na*nb)
}

// WordMoversDistance is the Word Mover's Distance of Kusner, Sun, Kolkin and Weinberger (ICML
// 2015) (scorer wmd): each document is its normalised bag of words over its distinct
// in-vocabulary words (weight = count / in-vocabulary length), the cost of moving a unit of
// weight from word i to word j is the Euclidean distance of their raw vectors, and the
// distance is the exact optimal-transport cost (transport.Distance). It is NaN when either
// document has no in-vocabulary word.
type WordMoversDistance struct {
	store *embeddings.Store
}

// NewWordMoversDistance returns the WMD over store's vectors.
func NewWordMoversDistance(store *embeddings.Store) (*WordMoversDistance, error) {
	if store == nil {
		return nil, fmt.Errorf("wmd: no word vectors")
	}
	return &WordMoversDistance{store: store}, nil
}

// Measure returns WMD(original, private). Mass that both documents put on the same word stays
// in place: with a metric cost (Euclidean distances obey the triangle inequality) some optimal
// plan never moves it, so it is cancelled before solving the smaller remaining problem — the
// value is the same, and near-identical documents (high ε) cost almost nothing.
func (m *WordMoversDistance) Measure(original, private []string) float64 {
	ra, wa := m.bag(original)
	rb, wb := m.bag(private)
	if len(ra) == 0 || len(rb) == 0 {
		return math.NaN()
	}
	ra, wa, rb, wb = cancelShared(ra, wa, rb, wb)
	if len(ra) == 0 {
		return 0
	}
	return m.transport(ra, wa, rb, wb)
}

// cancelShared removes min(wa, wb) from the weights of every word in both bags and drops the
// words left without weight.
func cancelShared(ra []int, wa []float64, rb []int, wb []float64) ([]int, []float64, []int, []float64) {
	posB := make(map[int]int, len(rb))
	for j, r := range rb {
		posB[r] = j
	}
	wa, wb = append([]float64(nil), wa...), append([]float64(nil), wb...)
	for i, r := range ra {
		if j, ok := posB[r]; ok {
			c := math.Min(wa[i], wb[j])
			wa[i] -= c
			wb[j] -= c
		}
	}
	keep := func(rows []int, w []float64) ([]int, []float64) {
		var kr []int
		var kw []float64
		for i, x := range w {
			if x > 0 {
				kr, kw = append(kr, rows[i]), append(kw, x)
			}
		}
		return kr, kw
	}
	ra, wa = keep(ra, wa)
	rb, wb = keep(rb, wb)
	return ra, wa, rb, wb
}

// transport solves the optimal-transport problem between the weighted rows.
func (m *WordMoversDistance) transport(ra []int, wa []float64, rb []int, wb []float64) float64 {
	cost := make([]float64, len(ra)*len(rb))
	for i, r := range ra {
		va := m.store.Vector(r)
		for j, s := range rb {
			if r == s {
				continue
			}
			var d float64
			for k, v := range m.store.Vector(s) {
				x := float64(va[k]) - float64(v)
				d += x * x
			}
			cost[i*len(rb)+j] = math.Sqrt(d)
		}
	}
	dist, err := transport.Distance(wa, wb, cost)
	if err != nil {
		panic(fmt.Sprintf("wmd: %v", err)) // the weights and costs built above are always valid
	}
	return dist
}

// bag returns the distinct in-vocabulary rows of doc in order of first occurrence and their
// normalised counts.
func (m *WordMoversDistance) bag(doc []string) (rows []int, weights []float64) {
	pos := map[int]int{}
	known := 0
	for _, w := range doc {
		r, ok := m.store.Lookup(w)
		if !ok {
			continue
		}
		known++
		p, seen := pos[r]
		if !seen {
			p = len(rows)
			pos[r] = p
			rows = append(rows, r)
			weights = append(weights, 0)
		}
		weights[p]++
	}
	for i := range weights {
		weights[i] /= float64(known)
	}
	return rows, weights
}

// StyleL2 is the Euclidean distance between the stylometric vectors of the two documents
// (scorer style_l2), with the vectors computed by a function handed in (the attackers'
// fixed-length style vector), so this package need not depend on the attackers.
type StyleL2 struct {
	style func(doc []string) []float64
}

// NewStyleL2 returns the style-change metric for the given fixed-length feature function.
func NewStyleL2(style func(doc []string) []float64) (*StyleL2, error) {
	if style == nil {
		return nil, fmt.Errorf("style_l2: no style vector function")
	}
	return &StyleL2{style: style}, nil
}

// Measure returns ‖style(original) − style(private)‖₂. Vectors of different lengths break
// the style function's contract and panic.
func (m *StyleL2) Measure(original, private []string) float64 {
	a, b := m.style(original), m.style(private)
	if len(a) != len(b) {
		panic(fmt.Sprintf("style_l2: style vectors of lengths %d and %d", len(a), len(b)))
	}
	var d float64
	for i := range a {
		x := a[i] - b[i]
		d += x * x
	}
	return math.Sqrt(d)
}
