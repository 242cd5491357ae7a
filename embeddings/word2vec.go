package embeddings

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxWordBytes bounds a word of a binary file, so that a file without separators fails fast.
const maxWordBytes = 1 << 16

// readWord2VecBinary parses the binary format of the original word2vec tool
// (GoogleNews-vectors-negative300.bin): an ASCII header line "N D", then N rows of
// "word<space>" followed by D little-endian float32 values and an optional newline. The header
// is checked against the file's size before any buffer is sized from it; in a gzip file, whose
// size is unknown, the row buffer grows as the first row's bytes arrive. Bytes after the N rows
// (other than newlines) are an error: the header's row count is wrong.
func readWord2VecBinary(src *source) (*Store, error) {
	r, path, topK := src.r, src.path, src.topK
	header, err := readLine(r)
	if err != nil && err != io.EOF {
		return nil, readErr(path, "header", `an "N D" header line`, err)
	}
	if header == "" {
		return nil, &FormatError{Path: path, Msg: "empty file"}
	}
	offset := src.base + int64(len(header))
	n, d, msg := parseHeader(strings.Fields(header))
	if msg == "" && src.size >= 0 {
		msg = checkHeaderSize(n, d, src.size-int64(len(header)), binaryRowBytes, 0)
	}
	if msg != "" {
		return nil, &FormatError{Path: path, Where: "line 1", Msg: msg}
	}
	rows := n
	if topK > 0 && topK < rows {
		rows = topK
	}
	avail := int64(-1)
	if src.size >= 0 {
		avail = src.size - int64(len(header))
	}
	b := newBuilder(path, d, preallocRows(n, topK, d, avail, binaryRowBytes(d)))
	var raw []byte // sized by the first row's bytes as they arrive (see readGrowing)
	values := make([]float32, 0, min(d, 1<<16))
	for row := 0; row < rows; row++ {
		// Skip the newline that ends the previous row (written by word2vec, optional elsewhere).
		skipped, err := skipNewlines(r)
		offset += skipped
		if err != nil {
			return nil, readErr(path, fmt.Sprintf("row %d (byte offset %d)", row, offset),
				fmt.Sprintf("%d rows as declared by the header, found %d", n, row), err)
		}
		wordStart := offset
		where := fmt.Sprintf("row %d (byte offset %d)", row, wordStart)
		word, err := r.ReadSlice(' ')
		if err == bufio.ErrBufferFull || len(word) > maxWordBytes {
			return nil, &FormatError{Path: path, Where: where,
				Msg: "no space after the word within the buffer: want \"word<space>\" then binary values" + dimHint(row, d)}
		}
		if err != nil {
			return nil, readErr(path, where, "a word followed by a space", err)
		}
		offset += int64(len(word))
		w := string(word[:len(word)-1])
		if msg := binaryWordProblem(w); msg != "" {
			return nil, &FormatError{Path: path, Where: where, Msg: msg + dimHint(row, d)}
		}
		raw, err = readGrowing(r, raw, 4*d)
		if err != nil {
			return nil, readErr(path, fmt.Sprintf("row %d (word %q, byte offset %d)", row, w, offset),
				fmt.Sprintf("%d float32 values (%d bytes), found %d bytes", d, 4*d, len(raw)), err)
		}
		values = values[:0]
		for j := 0; j < d; j++ {
			values = append(values, math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])))
		}
		if err := b.add(w, values, where); err != nil {
			return nil, err
		}
		offset += int64(len(raw))
	}
	if rows == n { // all declared rows read: nothing but newlines may follow
		skipped, err := skipNewlines(r)
		if err == nil {
			return nil, &FormatError{Path: path, Where: fmt.Sprintf("byte offset %d", offset+skipped),
				Msg: fmt.Sprintf("more data after the %d rows declared by the header: the header's row count (or dimension %d) is wrong", n, d)}
		}
		if err != io.EOF {
			return nil, readErr(path, fmt.Sprintf("byte offset %d", offset+skipped), "the end of the file", err)
		}
	}
	return b.store()
}

// binaryRowBytes is the fewest bytes a binary row of d values takes: a one-byte word, a space
// and d float32 values.
func binaryRowBytes(d int) int64 { return 4*int64(d) + 2 }

// skipNewlines consumes '\n' and '\r' bytes and returns how many; its error is that of the
// first other byte's read (io.EOF at the end).
func skipNewlines(r *bufio.Reader) (int64, error) {
	var n int64
	for {
		c, err := r.ReadByte()
		if err != nil {
			return n, err
		}
		if c != '\n' && c != '\r' {
			return n, r.UnreadByte()
		}
		n++
	}
}

// binaryWordProblem describes what makes w impossible as a word of a binary file (a control
// byte such as a newline only gets into a word when the rows are misaligned), or "".
func binaryWordProblem(w string) string {
	if w == "" {
		return "empty word"
	}
	if !utf8.ValidString(w) {
		return fmt.Sprintf("word %q is not valid UTF-8", w)
	}
	if i := strings.IndexFunc(w, func(c rune) bool { return c < 0x20 || c == 0x7f }); i >= 0 {
		return fmt.Sprintf("word %q contains the control byte 0x%02x", w, w[i])
	}
	return ""
}

// dimHint is appended to errors about a word after the first row: such damage usually means
// the rows are misaligned because the header's dimension is wrong.
func dimHint(row, d int) string {
	if row == 0 {
		return ""
	}
	return fmt.Sprintf(" (rows are \"word<space>\" then exactly %d float32 values: is the dimension %d in the header right?)", d, d)
}

// readGrowing reads exactly n bytes into buf (reused when its capacity suffices), growing it
// chunk by chunk as the bytes arrive so that a huge n that the data does not back costs memory
// in proportion to the data. On error it returns the bytes read so far.
func readGrowing(r io.Reader, buf []byte, n int) ([]byte, error) {
	if cap(buf) >= n {
		buf = buf[:n]
		got, err := io.ReadFull(r, buf)
		return buf[:got], err
	}
	buf = buf[:0]
	for len(buf) < n {
		chunk := min(n-len(buf), max(len(buf), 1<<16))
		buf = slices.Grow(buf, chunk)
		got, err := io.ReadFull(r, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+got]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}
