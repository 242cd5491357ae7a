package ngram

import (
	"fmt"
	"slices"
	"sync"
)

// Bidirectional predicts a word from both its neighbourhoods: a forward model reads the Order−1
// words on the left, a backward model (trained on reversed documents) the Order−1 words on the
// right, and the two distributions are multiplied and renormalised over the vocabulary,
//
//	P(v | left, right) = P_f(v | left) · P_b(v | right) / Σ_v′ P_f(v′ | left) · P_b(v′ | right),
//
// a product of experts. Unlike the Bayes combination P_f·P_b/P(v) it counts the unigram prior
// twice, which leans towards frequent words; both factors are positive everywhere, so the
// product is a proper distribution. The word at the position itself is never read.
type Bidirectional struct {
	forward, backward *Model
	scratch           sync.Pool // *[]float64 of vocabulary size, for the backward factor
}

// TrainBidirectional fits the forward and the backward model on docs with the same options.
func TrainBidirectional(vocab []string, docs [][]string, opts Options) (*Bidirectional, error) {
	fwd, err := Train(vocab, docs, opts)
	if err != nil {
		return nil, err
	}
	reversed := make([][]string, len(docs))
	for i, d := range docs {
		reversed[i] = slices.Clone(d)
		slices.Reverse(reversed[i])
	}
	bwd, err := Train(vocab, reversed, opts)
	if err != nil {
		return nil, err
	}
	b := &Bidirectional{forward: fwd, backward: bwd}
	b.scratch.New = func() any { s := make([]float64, len(vocab)); return &s }
	return b, nil
}

// Vocabulary returns the words the distributions are over, in row order.
func (b *Bidirectional) Vocabulary() []string { return b.forward.vocab }

// Window is the number of neighbours read on each side of a position (Order−1).
func (b *Bidirectional) Window() int { return b.forward.opts.Order - 1 }

// Distribution writes P(v | doc[i−w:i], doc[i+1:i+1+w]) for every vocabulary word v into dst,
// with w = Window(); doc[i] is not read. Safe for concurrent use.
func (b *Bidirectional) Distribution(dst []float64, doc []string, i int) {
	if i < 0 || i >= len(doc) {
		panic(fmt.Sprintf("ngram: position %d of a %d-word document", i, len(doc)))
	}
	w := b.Window()
	b.forward.Conditional(dst, doc[max(i-w, 0):i])
	right := make([]string, 0, w)
	for j := min(i+w, len(doc)-1); j > i; j-- {
		right = append(right, doc[j]) // the backward model reads the right context reversed
	}
	sp := b.scratch.Get().(*[]float64)
	defer b.scratch.Put(sp)
	back := *sp
	b.backward.Conditional(back, right)
	total := 0.0
	for v := range dst {
		dst[v] *= back[v]
		total += dst[v]
	}
	for v := range dst {
		dst[v] /= total
	}
}
