package embeddings

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// readText parses the word2vec/GloVe/fastText text format: one "word v1 … vD" line per word,
// fields separated by spaces or tabs, trailing blanks allowed, blank lines ignored. A first line
// of exactly two integers is the "N D" header (word2vec, fastText .vec); without it (GloVe) the
// dimension is taken from the first line and every later line must agree. With a header the file
// must hold exactly N rows (fewer means truncation).
func readText(r *bufio.Reader, path string, topK int) (*Store, error) {
	var b *builder
	declared := -1 // rows promised by the header, -1 without header
	headerLine := 0
	lineNo := 0
	fields := make([]string, 0, 301)
	var values []float32
	for {
		line, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, readErr(path, fmt.Sprintf("line %d", lineNo+1), "a line", err)
		}
		if line == "" {
			break
		}
		lineNo++
		where := fmt.Sprintf("line %d", lineNo)
		fields = splitBlank(fields[:0], line)
		if len(fields) == 0 {
			continue
		}
		if b == nil {
			if n, d, ok := parseHeader(fields); ok {
				if d <= 0 {
					return nil, &FormatError{Path: path, Where: where, Msg: fmt.Sprintf("header declares %d dimensions, want > 0", d)}
				}
				declared, headerLine = n, lineNo
				b = newBuilder(path, d, capacity(n, topK))
				continue
			}
			if len(fields) < 2 {
				return nil, &FormatError{Path: path, Where: where, Msg: "want a word followed by its values (or an \"N D\" header)"}
			}
			b = newBuilder(path, len(fields)-1, capacity(0, topK))
		}
		if len(fields)-1 != b.dim {
			from := "the first line"
			if headerLine > 0 {
				from = fmt.Sprintf("the header on line %d", headerLine)
			}
			return nil, &FormatError{Path: path, Where: where,
				Msg: fmt.Sprintf("word %q has %d values, want %d as on %s", fields[0], len(fields)-1, b.dim, from)}
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
		if declared >= 0 && len(b.words) > declared {
			return nil, &FormatError{Path: path, Where: where,
				Msg: fmt.Sprintf("more rows than the %d declared by the header", declared)}
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

// parseHeader recognises an "N D" header: exactly two non-negative integers.
func parseHeader(fields []string) (n, d int, ok bool) {
	if len(fields) != 2 {
		return 0, 0, false
	}
	n, err1 := strconv.Atoi(fields[0])
	d, err2 := strconv.Atoi(fields[1])
	return n, d, err1 == nil && err2 == nil && n >= 0
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

// capacity is the row capacity to reserve: the smaller positive of the declared count and topK,
// bounded so that a corrupt header cannot make us allocate gigabytes up front.
func capacity(declared, topK int) int {
	c := declared
	if topK > 0 && (c <= 0 || topK < c) {
		c = topK
	}
	return max(0, min(c, 1<<20))
}
