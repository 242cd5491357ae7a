package embeddings

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// readText parses the word2vec/GloVe/fastText text format: one "word v1 … vD" line per word,
// fields separated by spaces or tabs, trailing blanks allowed, blank lines ignored. A first line
// of exactly two integers is the "N D" header (word2vec, fastText .vec); without it (GloVe) the
// dimension is taken from the first line and every later line must agree. With a header the file
// must hold exactly N rows (fewer means truncation, more a wrong header), and the header is
// checked against the file's size before any buffer is sized from it.
func readText(src *source) (*Store, error) {
	path, topK := src.path, src.topK
	var b *builder
	declared := -1 // rows promised by the header, -1 without header
	headerLine := 0
	firstLine := "" // the first non-blank line when it holds only integers but is no header
	lineNo := 0
	var consumed int64 // bytes read so far
	fields := make([]string, 0, 301)
	var values []float32
	for {
		line, err := readLine(src.r)
		if err != nil && err != io.EOF {
			return nil, readErr(path, fmt.Sprintf("line %d", lineNo+1), "a line", err)
		}
		if line == "" {
			break
		}
		lineNo++
		consumed += int64(len(line))
		where := fmt.Sprintf("line %d", lineNo)
		fields = splitBlank(fields[:0], line)
		if len(fields) == 0 {
			continue
		}
		if b == nil {
			avail := src.size - consumed
			if src.size < 0 {
				avail = -1
			}
			if isHeader(fields) {
				n, d, msg := parseHeader(fields)
				if msg == "" {
					msg = checkHeaderSize(n, d, avail, textRowBytes, 1)
				}
				if msg != "" {
					return nil, &FormatError{Path: path, Where: where, Msg: msg}
				}
				declared, headerLine = n, lineNo
				b = newBuilder(path, d, preallocRows(n, topK, d, avail, textRowBytes(d)))
				continue
			}
			if len(fields) == 3 && allIntegers(fields) {
				return nil, &FormatError{Path: path, Where: where, Msg: fmt.Sprintf(
					"%q looks like a header, but a header is exactly two integers \"N D\" (rows, dimensions)", strings.Join(fields, " "))}
			}
			if allIntegers(fields) {
				firstLine = strings.Join(fields, " ")
			}
			if len(fields) < 2 {
				return nil, &FormatError{Path: path, Where: where, Msg: "want a word followed by its values (or an \"N D\" header)"}
			}
			d := len(fields) - 1
			b = newBuilder(path, d, preallocRows(-1, topK, d, avail, textRowBytes(d)))
		}
		if len(fields)-1 != b.dim {
			if firstLine != "" && len(b.words) == 1 {
				return nil, &FormatError{Path: path, Where: "line 1", Msg: fmt.Sprintf(
					"%q looks like a header but a header is exactly two integers \"N D\" (rows, dimensions); "+
						"read as a word with %d values, line %d has %d", firstLine, b.dim, lineNo, len(fields)-1)}
			}
			from := "the first line"
			if headerLine > 0 {
				from = fmt.Sprintf("the header on line %d", headerLine)
			}
			return nil, &FormatError{Path: path, Where: where,
				Msg: fmt.Sprintf("word %q has %d values, want %d as on %s", fields[0], len(fields)-1, b.dim, from)}
		}
		if declared >= 0 && len(b.words) == declared {
			return nil, &FormatError{Path: path, Where: where,
				Msg: fmt.Sprintf("more rows than the %d declared by the header on line %d", declared, headerLine)}
		}
		values = values[:0]
		for j, f := range fields[1:] {
			v, perr := strconv.ParseFloat(f, 32)
			if perr != nil {
				return nil, &FormatError{Path: path, Where: where,
					Msg: fmt.Sprintf("word %q value %d is %q, want a number", fields[0], j, f)}
			}
			values = append(values, float32(v))
		}
		if err := b.add(fields[0], values, where); err != nil {
			return nil, err
		}
		if topK > 0 && len(b.words) == topK {
			return b.store()
		}
	}
	if lineNo == 0 {
		return nil, &FormatError{Path: path, Msg: "empty file"}
	}
	if b == nil {
		return nil, &FormatError{Path: path, Msg: "no vectors in file"}
	}
	if declared >= 0 && len(b.words) < declared {
		return nil, &FormatError{Path: path, Where: fmt.Sprintf("line %d", lineNo),
			Msg: fmt.Sprintf("file ends after %d rows, header declared %d (truncated file?)", len(b.words), declared)}
	}
	return b.store()
}

// textRowBytes is the fewest bytes a text row of d values takes: a one-byte word and d
// one-digit values, each after a separator, and a newline.
func textRowBytes(d int) int64 { return 2*int64(d) + 2 }

// isHeader reports whether a first line is meant as an "N D" header: two integers (of any sign
// or size, so that a bad header gets a header error rather than a row error).
func isHeader(fields []string) bool {
	return len(fields) == 2 && allIntegers(fields)
}

// allIntegers reports whether every field is an optionally signed run of decimal digits.
func allIntegers(fields []string) bool {
	for _, f := range fields {
		f = strings.TrimLeft(f, "+-")
		if f == "" || strings.Trim(f, "0123456789") != "" {
			return false
		}
	}
	return true
}

// splitBlank appends the space- or tab-separated fields of line (without its line ending) to dst.
func splitBlank(dst []string, line string) []string {
	line = strings.TrimRight(line, "\r\n")
	start := -1
	for i := 0; i < len(line); i++ {
		if line[i] == ' ' || line[i] == '\t' {
			if start >= 0 {
				dst = append(dst, line[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, line[start:])
	}
	return dst
}
