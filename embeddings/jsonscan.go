package embeddings

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// jsonScanner reads JSON values one token at a time from a stream, for the wink reader. It is a
// hand-written replacement for encoding/json's token API, whose per-token allocations made the
// 307 MB wink file take about 30 s to read. It checks UTF-8 itself (encoding/json would silently
// turn invalid bytes in strings into U+FFFD, renaming words). Errors are FormatErrors with the
// byte offset of the first offending byte and what was expected there; they do not depend on how
// the stream is split into reads.
type jsonScanner struct {
	r    io.Reader
	path string
	buf  []byte // buf[pos:] is read but not yet consumed
	pos  int
	base int64  // stream offset of buf[0]
	err  error  // the error that ended the stream (io.EOF at its end); nil while data may follow
	text []byte // decoded content of strings with escapes
}

// maxJSONDepth bounds the nesting of skipped values, as encoding/json does.
const maxJSONDepth = 10000

// newJSONScanner reads r (named path in errors) through a buffer of bufSize bytes, which grows
// when a single token is longer.
func newJSONScanner(r io.Reader, path string, bufSize int) *jsonScanner {
	return &jsonScanner{r: r, path: path, buf: make([]byte, 0, max(bufSize, 1))}
}

// offset is the stream offset of the next unconsumed byte.
func (s *jsonScanner) offset() int64 { return s.base + int64(s.pos) }

// more reads more of the stream after the bytes already buffered, first moving the unconsumed
// bytes buf[pos:] to the front (so indexes relative to pos stay valid). It reports whether any
// byte was added.
func (s *jsonScanner) more() bool {
	if s.err != nil {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:])
		s.base += int64(s.pos)
		s.buf, s.pos = s.buf[:n], 0
	}
	if len(s.buf) == cap(s.buf) { // a single token fills the buffer
		s.buf = slices.Grow(s.buf, cap(s.buf))
	}
	for {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if err != nil {
			s.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// peek skips whitespace and returns the next byte without consuming it; false at the end of
// the stream (see endErr).
func (s *jsonScanner) peek() (byte, bool) {
	for {
		for s.pos < len(s.buf) {
			c := s.buf[s.pos]
			if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				return c, true
			}
			s.pos++
		}
		if !s.more() {
			return 0, false
		}
	}
}

// consume consumes the byte c if it comes next (after whitespace) and reports whether it did.
func (s *jsonScanner) consume(c byte) bool {
	if got, ok := s.peek(); !ok || got != c {
		return false
	}
	s.pos++
	return true
}

// next moves to the next element of the array or object being read, whose closing bracket is
// close: it consumes the ',' before every element but the first, or the closing bracket, and
// reports whether an element follows. expected describes the position for error messages.
func (s *jsonScanner) next(close byte, first bool, expected func() string) (bool, error) {
	c, ok := s.peek()
	switch {
	case ok && c == close:
		s.pos++
		return false, nil
	case first:
		return true, nil
	case ok && c == ',':
		s.pos++
		return true, nil
	}
	return false, s.unexpected(expected())
}

// errorAt returns a FormatError at a stream offset.
func (s *jsonScanner) errorAt(offset int64, msg string) error {
	return &FormatError{Path: s.path, Where: fmt.Sprintf("byte offset %d", offset), Msg: msg}
}

// unexpected reports that the next token (after whitespace) is not what was expected.
func (s *jsonScanner) unexpected(expected string) error {
	if _, ok := s.peek(); !ok {
		return s.endErr(expected)
	}
	at := s.offset()
	return s.errorAt(at, fmt.Sprintf("found %s, want %s", s.describe(), expected))
}

// endErr reports why the stream ended where more was expected: truncation or a read error.
func (s *jsonScanner) endErr(expected string) error {
	if s.err == io.EOF && s.offset() == 0 {
		return &FormatError{Path: s.path, Msg: "empty file"}
	}
	end := s.base + int64(len(s.buf)) // everything the stream gave is buffered
	return readErr(s.path, fmt.Sprintf("byte offset %d", end), expected, s.err)
}

// describe names the token at the scanner position for an error message, consuming it.
func (s *jsonScanner) describe() string {
	c := s.buf[s.pos]
	switch {
	case c == '"':
		if text, err := s.stringBytes("a string"); err == nil {
			return fmt.Sprintf("the string %q", text)
		}
		return "a broken string"
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		word := s.bareWord()
		switch {
		case validNumber([]byte(word)):
			return "the number " + word
		case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
			return "the malformed number " + word
		}
		return word
	case c >= utf8.RuneSelf:
		if size, ok := s.validRune(0); ok {
			return fmt.Sprintf("%q", s.buf[s.pos:s.pos+size])
		}
		return fmt.Sprintf("invalid UTF-8 (the byte 0x%02x)", c)
	}
	return byteName(c)
}

// byteName quotes an ASCII byte and gives the value of others.
func byteName(c byte) string {
	if c < utf8.RuneSelf {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("the byte 0x%02x", c)
}

// validRune reports whether a valid UTF-8 sequence starts at buf[pos+k], and its length.
func (s *jsonScanner) validRune(k int) (int, bool) {
	for !utf8.FullRune(s.buf[s.pos+k:]) && s.more() {
	}
	r, size := utf8.DecodeRune(s.buf[s.pos+k:])
	return size, r != utf8.RuneError || size > 1
}

// invalidUTF8 reports the invalid UTF-8 sequence at offset at.
func (s *jsonScanner) invalidUTF8(at int64, expected string) error {
	return s.errorAt(at, fmt.Sprintf("invalid UTF-8: want UTF-8 text (in %s)", expected))
}

// bareWord consumes and returns a run of letters, digits and number punctuation (at most 40
// bytes), the text of an invalid literal or number.
func (s *jsonScanner) bareWord() string {
	var word []byte
	for len(word) < 40 {
		if s.pos == len(s.buf) && !s.more() {
			break
		}
		c := s.buf[s.pos]
		if !numberByte[c] && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			break
		}
		word = append(word, c)
		s.pos++
	}
	return string(word)
}

// readString consumes a string (after whitespace) and returns its decoded content.
func (s *jsonScanner) readString(expected string) (string, error) {
	text, err := s.stringBytes(expected)
	return string(text), err
}

// stringBytes consumes a string (after whitespace) and returns its decoded content, valid
// until the next call on s. Strings without escapes are returned from the buffer.
func (s *jsonScanner) stringBytes(expected string) ([]byte, error) {
	if c, ok := s.peek(); !ok || c != '"' {
		return nil, s.unexpected(expected)
	}
	for k := 1; ; k++ { // k indexes the string from its opening quote at buf[pos]
		if s.pos+k == len(s.buf) && !s.more() {
			return nil, s.endErr("the closing quote of " + expected)
		}
		c := s.buf[s.pos+k]
		if c == '"' {
			text := s.buf[s.pos+1 : s.pos+k]
			s.pos += k + 1
			return text, nil
		}
		if c == '\\' || c < 0x20 {
			s.text = append(s.text[:0], s.buf[s.pos+1:s.pos+k]...)
			s.pos += k
			return s.escapedRest(expected)
		}
		if c >= utf8.RuneSelf {
			size, ok := s.validRune(k)
			if !ok {
				return nil, s.invalidUTF8(s.offset()+int64(k), expected)
			}
			k += size - 1
		}
	}
}

// escapedRest decodes the rest of a string from its first escape or control character on,
// into s.text.
func (s *jsonScanner) escapedRest(expected string) ([]byte, error) {
	for {
		at := s.offset()
		if s.pos == len(s.buf) && !s.more() {
			return nil, s.endErr("the closing quote of " + expected)
		}
		if s.buf[s.pos] >= utf8.RuneSelf {
			size, ok := s.validRune(0)
			if !ok {
				return nil, s.invalidUTF8(at, expected)
			}
			s.text = append(s.text, s.buf[s.pos:s.pos+size]...)
			s.pos += size
			continue
		}
		c := s.buf[s.pos]
		s.pos++
		switch {
		case c == '"':
			return s.text, nil
		case c < 0x20:
			return nil, s.errorAt(at, fmt.Sprintf("control character %q in a string: want it escaped (in %s)", rune(c), expected))
		case c != '\\':
			s.text = append(s.text, c)
			continue
		}
		e, ok := s.readByte()
		if !ok {
			return nil, s.endErr("an escape sequence in " + expected)
		}
		switch e {
		case '"', '\\', '/':
			s.text = append(s.text, e)
		case 'b':
			s.text = append(s.text, '\b')
		case 'f':
			s.text = append(s.text, '\f')
		case 'n':
			s.text = append(s.text, '\n')
		case 'r':
			s.text = append(s.text, '\r')
		case 't':
			s.text = append(s.text, '\t')
		case 'u':
			r, err := s.unicodeEscape(at, expected)
			if err != nil {
				return nil, err
			}
			s.text = utf8.AppendRune(s.text, r)
		default:
			return nil, s.errorAt(at, fmt.Sprintf("invalid escape: backslash then %s, want one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX (in %s)", byteName(e), expected))
		}
	}
}

// unicodeEscape decodes the four hex digits after `\u` (the escape began at offset at) and, for
// a high surrogate, the `\uXXXX` low surrogate that must follow it.
func (s *jsonScanner) unicodeEscape(at int64, expected string) (rune, error) {
	r, err := s.hex4(at, expected)
	if err != nil || !utf16.IsSurrogate(r) {
		return r, err
	}
	lone := func() error {
		return s.errorAt(at, fmt.Sprintf("lone UTF-16 surrogate \\u%04x: want a high surrogate followed by \\u and a low one (in %s)", r, expected))
	}
	if r >= 0xdc00 { // a low surrogate first
		return 0, lone()
	}
	for _, want := range []byte{'\\', 'u'} {
		c, ok := s.readByte()
		if !ok {
			return 0, s.endErr(fmt.Sprintf("the low surrogate after \\u%04x in %s", r, expected))
		}
		if c != want {
			return 0, lone()
		}
	}
	low, err := s.hex4(at, expected)
	if err != nil {
		return 0, err
	}
	pair := utf16.DecodeRune(r, low)
	if pair == utf8.RuneError {
		return 0, lone()
	}
	return pair, nil
}

// hex4 decodes the four hex digits of a \u escape that began at offset at.
func (s *jsonScanner) hex4(at int64, expected string) (rune, error) {
	var r rune
	for range 4 {
		c, ok := s.readByte()
		if !ok {
			return 0, s.endErr("four hex digits after \\u in " + expected)
		}
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, s.errorAt(at, fmt.Sprintf("invalid \\u escape: %s is not a hex digit (in %s)", byteName(c), expected))
		}
		r = r<<4 | rune(d)
	}
	return r, nil
}

// readByte consumes one byte, whitespace included.
func (s *jsonScanner) readByte() (byte, bool) {
	if s.pos == len(s.buf) && !s.more() {
		return 0, false
	}
	c := s.buf[s.pos]
	s.pos++
	return c, true
}

// numberByte marks the bytes that may occur in a JSON number.
var numberByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true,
	'7': true, '8': true, '9': true, '-': true, '+': true, '.': true, 'e': true, 'E': true}

// number consumes a number (after whitespace) and returns its text, valid until the next call
// on s. If the next token is not a valid JSON number, number consumes nothing and returns
// false; the caller reports it with unexpected.
func (s *jsonScanner) number() ([]byte, bool) {
	if _, ok := s.peek(); !ok {
		return nil, false
	}
	k := 0 // the number is buf[pos:pos+k]
	for {
		for s.pos+k < len(s.buf) && numberByte[s.buf[s.pos+k]] {
			k++
		}
		if s.pos+k < len(s.buf) || !s.more() {
			break
		}
	}
	text := s.buf[s.pos : s.pos+k]
	if !validNumber(text) {
		return nil, false
	}
	s.pos += k
	return text, true
}

// validNumber reports whether b follows the JSON number grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		if i = skipDigits(b, i+1); b[i-1] == '.' {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		if i = skipDigits(b, i); i == start {
			return false
		}
	}
	return i == len(b)
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// skipValue consumes any JSON value (after whitespace), checking its syntax.
func (s *jsonScanner) skipValue(expected string, depth int) error {
	if depth > maxJSONDepth {
		return s.errorAt(s.offset(), fmt.Sprintf("values nested more than %d deep in %s", maxJSONDepth, expected))
	}
	c, ok := s.peek()
	switch {
	case !ok:
		return s.endErr(expected)
	case c == '"':
		_, err := s.stringBytes(expected)
		return err
	case c == '-' || c >= '0' && c <= '9':
		if _, ok := s.number(); !ok {
			return s.unexpected(expected)
		}
		return nil
	case c == 't' || c == 'f' || c == 'n':
		return s.literal(expected)
	case c == '[' || c == '{':
		return s.skipContainer(c, expected, depth)
	}
	return s.unexpected(expected)
}

// skipContainer consumes an array or object (open is '[' or '{') and everything in it.
func (s *jsonScanner) skipContainer(open byte, expected string, depth int) error {
	close := byte(']')
	if open == '{' {
		close = '}'
	}
	s.pos++
	inner := func() string { return fmt.Sprintf("',' or %q in %s", close, expected) }
	for first := true; ; first = false {
		more, err := s.next(close, first, inner)
		if err != nil || !more {
			return err
		}
		if open == '{' {
			if _, err := s.stringBytes("an object key in " + expected); err != nil {
				return err
			}
			if !s.consume(':') {
				return s.unexpected("':' after an object key in " + expected)
			}
		}
		if err := s.skipValue(expected, depth+1); err != nil {
			return err
		}
	}
}

// literal consumes true, false or null.
func (s *jsonScanner) literal(expected string) error {
	at := s.offset()
	word := s.bareWord()
	if word != "true" && word != "false" && word != "null" {
		return s.errorAt(at, fmt.Sprintf("found %s, want %s", word, expected))
	}
	return nil
}

// unsafeString views b as a string without copying, for parsing numbers; the string must not
// outlive the next change of b.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// parseFloat32 converts a valid JSON number to the float32 that strconv.ParseFloat(text, 32)
// returns, with the same error for values beyond the float32 range. Most numbers take the exact
// shortcut of exactFloat32, which is several times faster.
func parseFloat32(text []byte) (float32, error) {
	if v, ok := exactFloat32(text); ok {
		return v, nil
	}
	v, err := strconv.ParseFloat(unsafeString(text), 32)
	return float32(v), err
}

// float32Pow10 holds the powers of ten that float32 represents exactly (5¹⁰ < 2²⁴).
var float32Pow10 = [...]float32{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// exactFloat32 converts a valid JSON number m·10^e whose decimal mantissa m is below 2²⁴ and
// whose exponent satisfies |e| ≤ 10. Then m and 10^|e| are exact float32 values and one IEEE
// multiplication or division rounds their product or quotient correctly, so the result equals
// strconv's correctly rounded one (this is Clinger's fast path, which strconv also takes). It
// reports false for every other number.
func exactFloat32(b []byte) (float32, bool) {
	i, neg := 0, false
	if b[0] == '-' {
		neg, i = true, 1
	}
	var m uint32
	exp := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if m = m*10 + uint32(b[i]-'0'); m >= 1<<24 {
			return 0, false
		}
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if m = m*10 + uint32(b[i]-'0'); m >= 1<<24 {
				return 0, false
			}
			exp--
		}
	}
	if i < len(b) { // the exponent [eE][+-]?digits
		i++
		expNeg := b[i] == '-'
		if b[i] == '-' || b[i] == '+' {
			i++
		}
		e := 0
		for ; i < len(b); i++ {
			if e = e*10 + int(b[i]-'0'); e > 100 {
				return 0, false
			}
		}
		if expNeg {
			e = -e
		}
		exp += e
	}
	v := float32(m)
	switch {
	case exp < -10 || exp > 10:
		return 0, false
	case exp < 0:
		v /= float32Pow10[-exp]
	default:
		v *= float32Pow10[exp]
	}
	if neg {
		v = -v
	}
	return v, true
}
