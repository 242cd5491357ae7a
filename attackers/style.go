package attackers

import (
	"strings"
	"unicode"
)

// Characters counted by the punctuation and special-character features of StyleVector, in
// the order of their components (WritePrints' 8 punctuation marks and 21 special characters).
const (
	stylePunctuation = `.,?!:;'"`
	styleSpecial     = `~@#$%^&*-_=+><[]{}/\|`
	// maxWordLength is the last word-length bin: it counts words of this length or longer.
	maxWordLength = 20
)

// styleFunctionWords are the English function words whose rates StyleVector reports: articles,
// pronouns, prepositions, conjunctions, auxiliaries and common quantifiers and adverbs. Most
// are also NLTK stopwords, so on normalised documents these components are all zero.
var styleFunctionWords = strings.Fields(`
a about above across after again against all almost along also although always am among an
and another any anybody anyone anything are around as at be because been before behind being
below beneath beside between beyond both but by can cannot could did do does down during each
either enough every everybody everyone everything few for from had has have he her hers herself
him himself his how however i if in inside into is it its itself just least less many may me
might mine more most much must my myself near neither never no nobody none nor not nothing now
of off often on once one only onto or other others ought our ours ourselves out outside over
own per perhaps quite rather same several shall she should since so some somebody someone
something such than that the their theirs them themselves then there therefore these they this
those though through throughout thus till to toward towards under unless until up upon us very
was we were what whatever when whenever where whereas wherever whether which while who whoever
whom whose why will with within without would yet you your yours yourself yourselves`)

var styleFunctionIndex = func() map[string]int {
	m := make(map[string]int, len(styleFunctionWords))
	for i, w := range styleFunctionWords {
		m[w] = i
	}
	return m
}()

// StyleVectorLen is the length of every StyleVector.
func StyleVectorLen() int {
	return 3 + 26 + 10 + maxWordLength + len(stylePunctuation) + len(styleSpecial) +
		len(styleFunctionWords) + 3
}

// StyleVector returns the fixed-length part of the WritePrints-limited feature set (Abbasi
// and Chen, ACM TOIS 26(2), 2008, Table 3; the "limited" variant of Brennan, Afroz and
// Greenstadt, ACM TISSEC 15(3), 2012), without part-of-speech features. Every component is a
// rate in [0, 1], so vectors of documents of different lengths are comparable and the L2
// distance between the vectors of a document before and after a mechanism measures
// stylometric change. The components, in order:
//
//   - 3 character rates: letters / characters, uppercase / letters, digits / characters;
//   - 26 letter frequencies a…z / letters (case folded);
//   - 10 digit frequencies 0…9 / characters;
//   - 20 word-length shares: words of 1, 2, …, 19 and ≥ 20 characters / words;
//   - 8 punctuation marks . , ? ! : ; ' " / characters;
//   - 21 special characters ~ @ # $ % ^ & * - _ = + > < [ ] { } / \ | / characters;
//   - one rate per function word (see styleFunctionWords) / words;
//   - hapax legomena / words, dis legomena / words, and Yule's K·10⁻⁴ = (Σ_i i²·V_i − N) / N²
//     (V_i the number of words occurring i times, N the number of words).
//
// Characters are the runes of the tokens (white space between tokens is not seen). Word-level
// components use each token lowercased with leading and trailing punctuation and symbols
// removed; tokens left empty are not words. On normalised tokens (lowercase, no punctuation,
// no stopwords) the uppercase rate, the punctuation and special-character rates (except
// inner apostrophes and hyphens) and nearly all function-word rates are zero.
func StyleVector(doc []string) []float64 {
	v := make([]float64, StyleVectorLen())
	chars, letters, upper, digits := styleCharacters(doc, v)
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	v[0] = div(letters, chars)
	v[1] = div(upper, letters)
	v[2] = div(digits, chars)
	for i := 3; i < 3+26; i++ {
		v[i] = div(v[i], letters)
	}
	for i := 3 + 26; i < 3+36; i++ {
		v[i] = div(v[i], chars)
	}
	punct := 3 + 36 + maxWordLength
	for i := punct; i < punct+len(stylePunctuation)+len(styleSpecial); i++ {
		v[i] = div(v[i], chars)
	}
	styleWords(doc, v)
	return v
}

// styleCharacters fills the raw letter, digit, punctuation and special-character counts of v
// and returns the character totals.
func styleCharacters(doc []string, v []float64) (chars, letters, upper, digits float64) {
	punct := 3 + 36 + maxWordLength
	special := punct + len(stylePunctuation)
	for _, tok := range doc {
		for _, r := range tok {
			chars++
			switch {
			case unicode.IsLetter(r):
				letters++
				if unicode.IsUpper(r) {
					upper++
				}
				if l := unicode.ToLower(r); l >= 'a' && l <= 'z' {
					v[3+int(l-'a')]++
				}
			case r >= '0' && r <= '9':
				digits++
				v[3+26+int(r-'0')]++
			case unicode.IsDigit(r):
				digits++
			default:
				if i := strings.IndexRune(stylePunctuation, r); i >= 0 {
					v[punct+i]++
				} else if i := strings.IndexRune(styleSpecial, r); i >= 0 {
					v[special+i]++
				}
			}
		}
	}
	return chars, letters, upper, digits
}

// styleWords fills the word-length, function-word and vocabulary-richness components of v.
func styleWords(doc []string, v []float64) {
	lengths := 3 + 36
	function := lengths + maxWordLength + len(stylePunctuation) + len(styleSpecial)
	richness := function + len(styleFunctionWords)
	counts := map[string]int{}
	var n float64
	for _, tok := range doc {
		w := strings.ToLower(strings.TrimFunc(tok, func(r rune) bool {
			return unicode.IsPunct(r) || unicode.IsSymbol(r)
		}))
		if w == "" {
			continue
		}
		n++
		counts[w]++
		length := min(len([]rune(w)), maxWordLength)
		v[lengths+length-1]++
		if i, ok := styleFunctionIndex[w]; ok {
			v[function+i]++
		}
	}
	if n == 0 {
		return
	}
	for i := lengths; i < lengths+maxWordLength; i++ {
		v[i] /= n
	}
	for i := function; i < richness; i++ {
		v[i] /= n
	}
	var hapax, dis, sumSquares float64
	for _, c := range counts {
		switch c {
		case 1:
			hapax++
		case 2:
			dis++
		}
		sumSquares += float64(c) * float64(c)
	}
	v[richness] = hapax / n
	v[richness+1] = dis / n
	v[richness+2] = (sumSquares - n) / (n * n)
}
