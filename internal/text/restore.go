package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Restore writes raw with its tokens replaced, for a person to read. toks are spans of raw (as
// returned by Tokenize, in order; tokens not listed stay as they are) and repl[i] is the word
// that takes the place of toks[i], or "" to drop it. The replacement gets the casing pattern of
// the token it replaces (see MatchCase); white space, punctuation and every character outside
// the listed spans are kept, except that a dropped token takes one neighbouring run of white
// space with it (see ReplaceSpans).
func Restore(raw string, toks []Token, repl []string) string {
	cased := make([]string, len(repl))
	for i, r := range repl {
		cased[i] = MatchCase(toks[i].Text, r)
	}
	return ReplaceSpans(raw, toks, cased)
}

// MatchCase returns word written in the casing pattern of model: UPPER when model has at least
// two letters and all of them are upper case ("NASA"), Title when its first letter is upper case
// ("Senate", "McDonald", "I"), lower otherwise. Only the first letter is changed for Title, so
// a replacement keeps inner capitals of its own.
func MatchCase(model, word string) string {
	letters, upper := 0, 0
	first := rune(0)
	for _, r := range model {
		if !unicode.IsLetter(r) {
			continue
		}
		if first == 0 {
			first = r
		}
		letters++
		if unicode.IsUpper(r) {
			upper++
		}
	}
	switch {
	case letters >= 2 && upper == letters:
		return strings.ToUpper(word)
	case first != 0 && unicode.IsUpper(first) && word != "":
		r, size := utf8.DecodeRuneInString(word)
		return string(unicode.ToTitle(r)) + word[size:]
	default:
		return word
	}
}

// ReplaceSpans writes raw with spans[i] replaced verbatim by repl[i]; spans must be in order
// and must not overlap. An empty replacement drops the span and tidies the white space around
// it: after white space (or at the start of raw) the following run of white space goes too
// ("a b c" without b reads "a c"), and before closing punctuation (see closingPunctuation)
// the preceding run goes ("John Smith!" without Smith reads "John!").
func ReplaceSpans(raw string, spans []Token, repl []string) string {
	if len(spans) != len(repl) {
		panic(fmt.Sprintf("text: %d spans and %d replacements", len(spans), len(repl)))
	}
	out := make([]byte, 0, len(raw))
	pos := 0
	for i, s := range spans {
		if s.Start < pos || s.End < s.Start || s.End > len(raw) {
			panic(fmt.Sprintf("text: span %d [%d, %d) out of order or outside the text (%d bytes, at %d)", i, s.Start, s.End, len(raw), pos))
		}
		out = append(out, raw[pos:s.Start]...)
		pos = s.End
		if repl[i] != "" {
			out = append(out, repl[i]...)
			continue
		}
		if len(out) == 0 || endsWithSpace(out) {
			pos += leadingSpace(raw[pos:])
		}
		if next, _ := utf8.DecodeRuneInString(raw[pos:]); pos < len(raw) && strings.ContainsRune(closingPunctuation, next) {
			for endsWithSpace(out) {
				_, size := utf8.DecodeLastRune(out)
				out = out[:len(out)-size]
			}
		}
	}
	out = append(out, raw[pos:]...)
	return string(out)
}

// closingPunctuation is what attaches to the word before it: white space before it goes when
// that word is dropped.
const closingPunctuation = ".,;:!?)]}”’…"

func endsWithSpace(b []byte) bool {
	r, size := utf8.DecodeLastRune(b)
	return size > 0 && unicode.IsSpace(r)
}

// leadingSpace is the length in bytes of the white space that s starts with.
func leadingSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			break
		}
		n += utf8.RuneLen(r)
	}
	return n
}

// RewriteWords applies f to the normalised words of raw — the lowercased tokens that are not
// stopwords, exactly the sequence NormalizeText(raw) gives — and writes f's words back in their
// places with Restore. Stopwords, punctuation, spacing and the casing pattern of every
// token are those of raw. f must return one word (or "" to drop it) per input word. A
// mechanism's readable output is RewriteWords(raw, func(w []string) []string { return
// mech.Apply(rng, w) }).
func RewriteWords(raw string, f func(words []string) []string) (string, error) {
	return rewrite(raw, false, f)
}

// RewriteEveryWord is RewriteWords with the stopwords among the words f rewrites: f gets
// LowercaseText(raw), every token lowercased, and only punctuation, spacing and casing are
// raw's. It is the release of a mechanism whose model reads and writes function words.
func RewriteEveryWord(raw string, f func(words []string) []string) (string, error) {
	return rewrite(raw, true, f)
}

// rewrite is RewriteWords, with the stopwords among the rewritten words when every is true.
func rewrite(raw string, every bool, f func(words []string) []string) (string, error) {
	var toks []Token
	var words []string
	for _, t := range Tokenize(raw) {
		w := lower(t.Text)
		if !every && IsStopword(w) {
			continue
		}
		toks = append(toks, t)
		words = append(words, w)
	}
	out := f(words)
	if len(out) != len(words) {
		return "", fmt.Errorf("text: rewriting %d words gave %d; want one word (or \"\" to drop it) per word", len(words), len(out))
	}
	return Restore(raw, toks, out), nil
}
