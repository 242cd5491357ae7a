// Package text splits raw text into tokens and normalises them the way the Fernandes et al.
// protocol needs (lowercase, punctuation and stopwords removed), keeping byte offsets so that a
// mechanism's output can be written back into the original text.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token is one word of a raw text with its byte span [Start, End).
type Token struct {
	Text       string
	Start, End int
}

// Tokenize splits s into words: maximal runs of letters, digits and marks, with an apostrophe
// or hyphen kept when it stands between two such characters ("don't", "well-known").
// Everything else (white space, punctuation, symbols) separates words and is not returned.
func Tokenize(s string) []Token {
	var out []Token
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && (r == '\'' || r == '’' || r == '-') && i > start {
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			if isWordRune(next) {
				continue
			}
		}
		if start >= 0 {
			out = append(out, Token{Text: s[start:i], Start: start, End: i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, Token{Text: s[start:], Start: start, End: len(s)})
	}
	return out
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// Words returns the token texts of s, unchanged (case and inner apostrophes kept).
func Words(s string) []string {
	toks := Tokenize(s)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

// Normalize lowercases words, writes typographic apostrophes (’) as ASCII ones, and drops
// stopwords (see Stopwords). Tokenize already dropped punctuation. The result is the word sequence every mechanism, attacker and classifier of the
// Fernandes protocol sees (SPEC §3).
func Normalize(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		lw := lower(w)
		if IsStopword(lw) {
			continue
		}
		out = append(out, lw)
	}
	return out
}

// NormalizeText is Normalize(Words(s)).
func NormalizeText(s string) []string { return Normalize(Words(s)) }

// LowercaseText is NormalizeText with the stopwords kept: every word of s lowercased, with
// typographic apostrophes written as ASCII ones (the text a model that generates function
// words is trained on).
func LowercaseText(s string) []string {
	words := Words(s)
	for i, w := range words {
		words[i] = lower(w)
	}
	return words
}

// lower lowercases w and writes typographic apostrophes (’) as ASCII ones.
func lower(w string) string { return strings.ReplaceAll(strings.ToLower(w), "’", "'") }

// IsStopword reports whether the lowercase word w is in the stopword list.
func IsStopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}

// Stopwords returns the stopword list in its published order.
func Stopwords() []string { return append([]string(nil), stopwordList...) }

// stopwordList is the English stopword list distributed with NLTK's stopwords corpus (179
// words), the list most text-privacy code uses; word2vec and GloVe users expect it. Entries
// such as "don't" appear both with and without their apostrophe because NLTK lists both forms.
var stopwordList = strings.Fields(`
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their
theirs themselves what which who whom this that that'll these those am is are was were be been
being have has had having do does did doing a an the and but if or because as until while of at
by for with about against between into through during before after above below to from up down
in out on off over under again further then once here there when where why how all any both each
few more most other some such no nor not only own same so than too very s t can will just don
don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn
doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn
needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't`)

var stopwords = func() map[string]struct{} {
	m := make(map[string]struct{}, len(stopwordList))
	for _, w := range stopwordList {
		m[w] = struct{}{}
	}
	return m
}()
