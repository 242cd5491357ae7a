// Package ngram is a small word n-gram language model: interpolated Kneser–Ney smoothing with
// one absolute discount D at every order (Kneser and Ney 1995; Chen and Goodman 1998, §2.7, the
// "interpolated" variant with a single discount rather than the modified three-discount one).
//
// For a history h of n−1 words and a word w of the vocabulary V,
//
//	P_n(w | h) = max(c(h w) − D, 0) / c(h·) + D · N₁₊(h ·) / c(h·) · P_{n−1}(w | h′)
//
// where h′ drops the oldest word of h, c are raw counts at the top order and continuation counts
// N₁₊(· h w) (the number of distinct words seen before h w) below it, and N₁₊(h ·) is the number
// of distinct words seen after h. A history never seen falls through to the next order. The
// bottom is the unigram of continuation counts interpolated the same way with the uniform
// distribution 1/|V|, so every word of V gets positive probability and every conditional sums
// to one over V.
//
// Words outside the vocabulary are mapped to one unknown symbol: they count as history but are
// never predicted, so the model's distributions are over V exactly. Documents are padded on
// the left with a start symbol, so the first words of a document have their own histories.
package ngram

import (
	"cmp"
	"fmt"
	"slices"
)

// Options configure a model.
type Options struct {
	// Order is n, the length of the longest n-gram (1 = unigram, 2 = bigram, …); 1 to 4.
	Order int `toml:"order"`
	// Discount is the absolute discount D subtracted from every count, in (0, 1).
	Discount float64 `toml:"discount"`
}

// DefaultOptions returns a trigram model with D = 0.75, the usual single discount (Chen and
// Goodman found the optimum close to n₁/(n₁ + 2n₂), typically 0.7–0.8 on word data).
func DefaultOptions() Options { return Options{Order: 3, Discount: 0.75} }

// maxOrder bounds Order so that a history of Order−1 word ids packs into one uint64.
const (
	maxOrder = 4
	idBits   = 21
	idMask   = 1<<idBits - 1
)

// gram is one n-gram: its history packed into ctx (oldest word in the highest bits) and the
// predicted word.
type gram struct {
	ctx uint64
	w   int32
}

// history holds what the model knows about one history at one order: the total count c(h·)
// and the range [start, end) of its followers in the order's flat arrays.
type history struct {
	total      float64
	start, end int32
}

// level is one order of the model (histories of length k−1 for order k).
type level struct {
	histories map[uint64]history
	words     []int32   // followers, sorted by word id within each history
	counts    []float64 // their (raw or continuation) counts
}

// Model is a trained n-gram model over a fixed vocabulary. It is immutable after training and
// safe for concurrent use.
type Model struct {
	opts    Options
	vocab   []string
	index   map[string]int32
	unknown int32 // id of words outside the vocabulary
	start   int32 // id of the left padding
	unigram []float64
	levels  []level // levels[k-2] holds order k, for k = 2…Order
}

// Train fits a model with the given vocabulary (the rows of every distribution it returns) on
// documents given as token sequences.
func Train(vocab []string, docs [][]string, opts Options) (*Model, error) {
	if opts.Order < 1 || opts.Order > maxOrder {
		return nil, fmt.Errorf("ngram: order = %d: want 1 to %d", opts.Order, maxOrder)
	}
	if !(opts.Discount > 0 && opts.Discount < 1) {
		return nil, fmt.Errorf("ngram: discount = %g: want a value in (0, 1)", opts.Discount)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("ngram: empty vocabulary")
	}
	if len(vocab)+2 > idMask {
		return nil, fmt.Errorf("ngram: vocabulary of %d words, want fewer than %d", len(vocab), idMask-1)
	}
	m := &Model{opts: opts, vocab: vocab, index: make(map[string]int32, len(vocab))}
	for i, w := range vocab {
		if _, dup := m.index[w]; dup {
			return nil, fmt.Errorf("ngram: word %q appears twice in the vocabulary", w)
		}
		m.index[w] = int32(i)
	}
	m.unknown, m.start = int32(len(vocab)), int32(len(vocab)+1)

	// counts[k-1] holds the counts of order k: raw at the top, continuation counts below.
	counts := make([]map[gram]float64, opts.Order)
	counts[opts.Order-1] = m.countTop(docs)
	for k := opts.Order - 1; k >= 1; k-- {
		counts[k-1] = make(map[gram]float64)
		drop := uint64(1)<<(idBits*(k-1)) - 1 // keeps the k−1 newest words of a k-word history
		for g := range counts[k] {
			counts[k-1][gram{g.ctx & drop, g.w}]++
		}
	}
	m.unigram = m.bottom(counts[0])
	for k := 2; k <= opts.Order; k++ {
		m.levels = append(m.levels, newLevel(counts[k-1]))
	}
	return m, nil
}

// countTop counts the n-grams of the top order whose predicted word is in the vocabulary.
func (m *Model) countTop(docs [][]string) map[gram]float64 {
	n := m.opts.Order
	top := make(map[gram]float64)
	ids := make([]int32, 0, 64)
	for _, doc := range docs {
		ids = ids[:0]
		for range n - 1 {
			ids = append(ids, m.start)
		}
		for _, w := range doc {
			ids = append(ids, m.id(w))
		}
		for t := n - 1; t < len(ids); t++ {
			if ids[t] == m.unknown {
				continue
			}
			top[gram{pack(ids[t-n+1 : t]), ids[t]}]++
		}
	}
	return top
}

// bottom is the unigram level interpolated with the uniform distribution.
func (m *Model) bottom(c map[gram]float64) []float64 {
	v := len(m.vocab)
	p := make([]float64, v)
	total := 0.0
	for _, x := range c {
		total += x
	}
	if total == 0 {
		for i := range p {
			p[i] = 1 / float64(v)
		}
		return p
	}
	d := m.opts.Discount
	floor := d * float64(len(c)) / total / float64(v)
	for i := range p {
		p[i] = floor
	}
	for g, x := range c {
		p[g.w] += (x - d) / total
	}
	return p
}

func newLevel(c map[gram]float64) level {
	grams := make([]gram, 0, len(c))
	for g := range c {
		grams = append(grams, g)
	}
	slices.SortFunc(grams, func(a, b gram) int {
		if a.ctx != b.ctx {
			return cmp.Compare(a.ctx, b.ctx)
		}
		return cmp.Compare(a.w, b.w)
	})
	l := level{histories: make(map[uint64]history), words: make([]int32, len(grams)), counts: make([]float64, len(grams))}
	for i := 0; i < len(grams); {
		j, total := i, 0.0
		for ; j < len(grams) && grams[j].ctx == grams[i].ctx; j++ {
			l.words[j], l.counts[j] = grams[j].w, c[grams[j]]
			total += l.counts[j]
		}
		l.histories[grams[i].ctx] = history{total: total, start: int32(i), end: int32(j)}
		i = j
	}
	return l
}

// pack encodes word ids as one key, oldest in the highest bits.
func pack(ids []int32) uint64 {
	var key uint64
	for _, id := range ids {
		key = key<<idBits | uint64(id)
	}
	return key
}

func (m *Model) id(w string) int32 {
	if i, ok := m.index[w]; ok {
		return i
	}
	return m.unknown
}

// Vocabulary returns the words the distributions are over, in row order. The caller must not
// modify it.
func (m *Model) Vocabulary() []string { return m.vocab }

// Order is the model's n.
func (m *Model) Order() int { return m.opts.Order }

// historyIDs returns the ids of the last Order−1 words before a prediction, padded on the left
// with the start symbol when history is shorter.
func (m *Model) historyIDs(history []string) []int32 {
	n := m.opts.Order - 1
	ids := make([]int32, n)
	pad := max(n-len(history), 0)
	for i := range pad {
		ids[i] = m.start
	}
	for i, w := range history[len(history)-(n-pad):] {
		ids[pad+i] = m.id(w)
	}
	return ids
}

// Conditional writes P(v | history) for every vocabulary word v into dst (len(dst) must equal
// the vocabulary size). Only the last Order−1 words of history are read; a shorter history
// means the start of a document. The cost is O(|V|·Order) plus the followers of each history.
func (m *Model) Conditional(dst []float64, history []string) {
	if len(dst) != len(m.vocab) {
		panic(fmt.Sprintf("ngram: Conditional into %d values, vocabulary has %d", len(dst), len(m.vocab)))
	}
	copy(dst, m.unigram)
	ids := m.historyIDs(history)
	d := m.opts.Discount
	for k := 2; k <= m.opts.Order; k++ {
		h, ok := m.levels[k-2].histories[pack(ids[len(ids)-(k-1):])]
		if !ok {
			continue
		}
		l := &m.levels[k-2]
		backoff := d * float64(h.end-h.start) / h.total
		for i := range dst {
			dst[i] *= backoff
		}
		for j := h.start; j < h.end; j++ {
			dst[l.words[j]] += (l.counts[j] - d) / h.total
		}
	}
}

// Prob returns P(w | history) for one word; words outside the vocabulary have probability 0.
// It follows the recursion word by word and agrees with Conditional.
func (m *Model) Prob(w string, history []string) float64 {
	target, ok := m.index[w]
	if !ok {
		return 0
	}
	p := m.unigram[target]
	ids := m.historyIDs(history)
	d := m.opts.Discount
	for k := 2; k <= m.opts.Order; k++ {
		l := &m.levels[k-2]
		h, ok := l.histories[pack(ids[len(ids)-(k-1):])]
		if !ok {
			continue
		}
		p *= d * float64(h.end-h.start) / h.total
		followers := l.words[h.start:h.end]
		if j, found := slices.BinarySearch(followers, target); found {
			p += (l.counts[int(h.start)+j] - d) / h.total
		}
	}
	return p
}
