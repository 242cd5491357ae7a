// Package embeddings holds word vectors in memory and reads them from the common file formats
// (word2vec binary, word2vec/GloVe/fastText text, the wink JSON of the default data) and from
// dptext's own binary cache. Vectors are kept raw, never normalised: the noise of metric
// mechanisms is scaled to raw distances (SPEC §2).
package embeddings

import (
	"fmt"
	"math"
	"sync"

	"dptext/internal/linalg"
	"dptext/internal/strindex"
)

// Store is a vocabulary with one float32 vector per word, in rank order (most frequent first
// when the source is frequency-ranked). It is immutable after construction and safe for
// concurrent use.
type Store struct {
	dim     int
	words   []string
	vectors []float32 // len(words)*dim, row-major
	index   *strindex.Index
	panels  func() *linalg.Panels // the vectors packed for linalg.MulAPanelsT, on first use
}

// New builds a store from words and their row-major vectors. Duplicate words are an error.
func New(words []string, dim int, vectors []float32) (*Store, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("embeddings: dimension %d, want > 0", dim)
	}
	if len(vectors) != len(words)*dim {
		return nil, fmt.Errorf("embeddings: %d words × %d dimensions needs %d values, got %d",
			len(words), dim, len(words)*dim, len(vectors))
	}
	if len(words) > math.MaxInt32 {
		return nil, fmt.Errorf("embeddings: %d words: at most %d", len(words), math.MaxInt32)
	}
	index := strindex.New(len(words))
	for i, w := range words {
		if first, dup := index.Get(w); dup {
			return nil, fmt.Errorf("embeddings: word %q appears twice (rows %d and %d)", w, first, i)
		}
		index.Set(w, int32(i))
	}
	s := &Store{dim: dim, words: words, vectors: vectors, index: index}
	s.panels = sync.OnceValue(func() *linalg.Panels { return linalg.PackPanels(s.vectors, len(s.words), s.dim) })
	return s, nil
}

// Dim is the number of dimensions of every vector.
func (s *Store) Dim() int { return s.dim }

// Len is the number of words.
func (s *Store) Len() int { return len(s.words) }

// Word returns the word of row i.
func (s *Store) Word(i int) string { return s.words[i] }

// Words returns the vocabulary in row order. The caller must not modify it.
func (s *Store) Words() []string { return s.words }

// Lookup returns the row of w and whether w is in the vocabulary.
func (s *Store) Lookup(w string) (int, bool) {
	i, ok := s.index.Get(w)
	return int(i), ok
}

// Vector returns the vector of row i. The caller must not modify it.
func (s *Store) Vector(i int) []float32 { return s.vectors[i*s.dim : (i+1)*s.dim] }

// Matrix returns all vectors as one row-major slice of Len()×Dim() values. The caller must not
// modify it.
func (s *Store) Matrix() []float32 { return s.vectors }

// Panels returns the vectors packed for products with linalg.MulAPanelsT (every row's dot
// products bit for bit as linalg.MulABt with Matrix gives them), packed on the first call.
func (s *Store) Panels() *linalg.Panels { return s.panels() }

// TopK returns a store restricted to the first k rows (the k most frequent words of a
// frequency-ranked source). k ≤ 0 or k ≥ Len() returns s itself.
func (s *Store) TopK(k int) *Store {
	if k <= 0 || k >= len(s.words) {
		return s
	}
	t, _ := New(s.words[:k], s.dim, s.vectors[:k*s.dim])
	return t
}

// Filter returns a store with the rows whose word satisfies keep, in the same order.
func (s *Store) Filter(keep func(word string) bool) *Store {
	var rows []int
	for i, w := range s.words {
		if keep(w) {
			rows = append(rows, i)
		}
	}
	if len(rows) == len(s.words) {
		return s
	}
	words := make([]string, len(rows))
	vecs := make([]float32, len(rows)*s.dim)
	for j, i := range rows {
		words[j] = s.words[i]
		copy(vecs[j*s.dim:], s.Vector(i))
	}
	t, _ := New(words, s.dim, vecs)
	return t
}
