package embeddings

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxWordBytes bounds a word of a binary file, so that a file without separators fails fast.
const maxWordBytes = 1 << 16

// readWord2VecBinary parses the binary format of the original word2vec tool
// (GoogleNews-vectors-negative300.bin): an ASCII header line "N D", then N rows of
// "word<space>" followed by D little-endian float32 values and an optional newline.
func readWord2VecBinary(r *bufio.Reader, path string, topK int) (*Store, error) {
	header, err := r.ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, readErr(path, "header", `an "N D" header line`, err)
	}
	if header == "" {
		return nil, &FormatError{Path: path, Msg: "empty file"}
	}
	offset := int64(len(header))
	fields := strings.Fields(header)
	var n, d int
	if len(fields) == 2 {
		n, err = strconv.Atoi(fields[0])
		if err == nil {
			d, err = strconv.Atoi(fields[1])
		}
	}
	if len(fields) != 2 || err != nil || n < 0 || d <= 0 {
		return nil, &FormatError{Path: path, Where: "line 1",
			Msg: fmt.Sprintf("header %q: want two integers \"N D\" with D > 0", strings.TrimSpace(header))}
	}
	rows := n
	if topK > 0 && topK < rows {
		rows = topK
	}
	b := newBuilder(path, d, capacity(rows, 0))
	raw := make([]byte, 4*d)
	values := make([]float32, d)
	for row := 0; row < rows; row++ {
		// Skip the newline that ends the previous row (written by word2vec, optional elsewhere).
		for {
			c, err := r.ReadByte()
			if err != nil {
				return nil, readErr(path, fmt.Sprintf("row %d (byte offset %d)", row, offset),
					fmt.Sprintf("%d rows as declared by the header, found %d", n, row), err)
			}
			if c != '\n' && c != '\r' {
				r.UnreadByte()
				break
			}
			offset++
		}
		wordStart := offset
		word, err := r.ReadSlice(' ')
		if err == bufio.ErrBufferFull || len(word) > maxWordBytes {
			return nil, &FormatError{Path: path, Where: fmt.Sprintf("row %d (byte offset %d)", row, wordStart),
				Msg: "no space after the word within the buffer: want \"word<space>\" then binary values"}
		}
		if err != nil {
			return nil, readErr(path, fmt.Sprintf("row %d (byte offset %d)", row, wordStart), "a word followed by a space", err)
		}
		offset += int64(len(word))
		w := string(word[:len(word)-1])
		got, err := io.ReadFull(r, raw)
		if err != nil {
			return nil, readErr(path, fmt.Sprintf("row %d (word %q, byte offset %d)", row, w, offset),
				fmt.Sprintf("%d float32 values (%d bytes), found %d bytes", d, len(raw), got), err)
		}
		for j := range values {
			values[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
		if err := b.add(w, values, fmt.Sprintf("row %d (byte offset %d)", row, wordStart)); err != nil {
			return nil, err
		}
		offset += int64(len(raw))
	}
	return b.store()
}
