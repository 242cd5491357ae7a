package embeddings

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// utf8Reader passes bytes through and fails at the first invalid UTF-8 sequence: the read that
// meets it returns the valid bytes before it together with a *utf8Error. A JSON parser that
// accepted invalid bytes in strings would rename words (encoding/json silently replaces them
// with U+FFFD); checking the stream before the parser sees it turns that into an error with the
// byte offset, and the parser itself need not check UTF-8.
type utf8Reader struct {
	r       io.Reader
	offset  int64  // bytes passed through before the current chunk
	pending []byte // the first bytes of a rune split across reads (at most 3)
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	data := p[:n]
	i := 0
	for len(u.pending) > 0 && i < len(data) { // complete a rune split across reads
		u.pending = append(u.pending, data[i])
		i++
		if utf8.FullRune(u.pending) {
			if r, size := utf8.DecodeRune(u.pending); r == utf8.RuneError && size <= 1 {
				return 0, u.invalid(int64(i - len(u.pending)))
			}
			u.pending = u.pending[:0]
		}
	}
	end := len(data)
	for j := len(data) - 1; j >= i && j >= len(data)-utf8.UTFMax; j-- {
		if utf8.RuneStart(data[j]) {
			if !utf8.FullRune(data[j:]) {
				end = j
			}
			break
		}
	}
	if !utf8.Valid(data[i:end]) {
		for k := i; k < end; {
			r, size := utf8.DecodeRune(data[k:end])
			if r == utf8.RuneError && size == 1 {
				return k, u.invalid(int64(k))
			}
			k += size
		}
	}
	u.pending = append(u.pending, data[end:]...)
	if err == io.EOF && len(u.pending) > 0 { // the stream ends inside a rune
		valid := n - len(u.pending)
		return max(valid, 0), u.invalid(int64(valid))
	}
	u.offset += int64(n)
	return n, err
}

func (u *utf8Reader) invalid(at int64) error {
	return &utf8Error{offset: u.offset + at}
}

// utf8Error locates the first invalid UTF-8 byte of a stream.
type utf8Error struct{ offset int64 }

func (e *utf8Error) Error() string { return fmt.Sprintf("invalid UTF-8 at byte offset %d", e.offset) }
