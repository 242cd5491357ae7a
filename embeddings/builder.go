package embeddings

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// builder collects rows while a reader parses a file and checks every row the same way for all
// formats: valid UTF-8, non-empty, unique words and finite values.
type builder struct {
	path    string
	dim     int
	words   []string
	vectors []float32
	rows    map[string]int
}

// newBuilder reserves capacity rows of dim values; readers bound capacity by what the file can
// hold (see preallocRows), so that a corrupt header cannot make them allocate gigabytes.
func newBuilder(path string, dim, capacity int) *builder {
	return &builder{
		path:    path,
		dim:     dim,
		words:   make([]string, 0, capacity),
		vectors: make([]float32, 0, capacity*dim),
		rows:    make(map[string]int, capacity),
	}
}

// add appends one row; where locates it in the file for error messages.
func (b *builder) add(word string, vector []float32, where string) error {
	if err := b.check(word, vector, where); err != nil {
		return err
	}
	b.rows[word] = len(b.words)
	b.words = append(b.words, word)
	b.vectors = append(b.vectors, vector...)
	return nil
}

func (b *builder) check(word string, vector []float32, where string) error {
	switch {
	case word == "":
		return &FormatError{Path: b.path, Where: where, Msg: "empty word"}
	case !utf8.ValidString(word):
		return &FormatError{Path: b.path, Where: where, Msg: fmt.Sprintf("word %q is not valid UTF-8", word)}
	case len(vector) != b.dim:
		return &FormatError{Path: b.path, Where: where,
			Msg: fmt.Sprintf("word %q has %d values, want %d", word, len(vector), b.dim)}
	}
	if first, dup := b.rows[word]; dup {
		return &FormatError{Path: b.path, Where: where,
			Msg: fmt.Sprintf("duplicate word %q (first at row %d)", word, first)}
	}
	for j, v := range vector {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return &FormatError{Path: b.path, Where: where,
				Msg: fmt.Sprintf("word %q value %d is %v, want a finite number", word, j, v)}
		}
	}
	return nil
}

// store finishes the build; an empty result is an error.
func (b *builder) store() (*Store, error) {
	if len(b.words) == 0 {
		return nil, &FormatError{Path: b.path, Msg: "no vectors in file"}
	}
	return New(b.words, b.dim, b.vectors)
}
