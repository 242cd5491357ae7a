package attackers

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// koppelN is the character n-gram size of koppel11: a word of at most koppelN characters
// (Unicode code points) is a feature as it is, a longer one yields its character koppelN-grams.
const koppelN = 4

// splitWords flattens a token sequence into whitespace-separated words, as the reference
// splits its raw text: tokens holding white space are split, empty tokens vanish.
func splitWords(doc []string) []string {
	out := make([]string, 0, len(doc))
	for _, t := range doc {
		if t == "" || strings.ContainsFunc(t, unicode.IsSpace) {
			out = append(out, strings.Fields(t)...)
			continue
		}
		out = append(out, t)
	}
	return out
}

// runeOffsets returns the byte offset of every rune of s followed by len(s), so that the
// runes i…j-1 are s[off[i]:off[j]].
func runeOffsets(s string, off []int) []int {
	off = off[:0]
	for i := range s {
		off = append(off, i)
	}
	return append(off, len(s))
}

// wordFeatures calls emit with the koppel11 features of one word: the word itself when it has
// at most koppelN runes, otherwise each of its character koppelN-grams in order. The strings
// handed to emit are substrings of w.
func wordFeatures(w string, off []int, emit func(string)) []int {
	if utf8.RuneCountInString(w) <= koppelN {
		emit(w)
		return off
	}
	off = runeOffsets(w, off)
	for i := 0; i+koppelN < len(off); i++ {
		emit(w[off[i]:off[i+koppelN]])
	}
	return off
}

// selectFeatures returns the at most limit most frequent features over the words, ties broken
// by first occurrence, as a map feature → id (id = rank).
func selectFeatures(words []string, limit int) map[string]int32 {
	count := map[string]int{}
	var order []string
	var off []int
	for _, w := range words {
		off = wordFeatures(w, off, func(f string) {
			if count[f] == 0 {
				order = append(order, f)
			}
			count[f]++
		})
	}
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	if len(order) > limit {
		order = order[:limit]
	}
	ids := make(map[string]int32, len(order))
	for i, f := range order {
		ids[f] = int32(i)
	}
	return ids
}

// featureStream is a text as a sequence of feature ids laid out so that the features of any
// run of consecutive words form one contiguous slice: a window's feature counts are counts
// over a slice, and the offsets below are prefix counts of feature occurrences.
//
// In word mode (default and paper), ids holds the in-vocabulary features of each word in turn
// and start[i] is the offset of word i's first feature. In joined mode (compat), the words are
// concatenated without separator, start[i] is the rune offset of word i in the concatenation,
// ids holds the in-vocabulary koppelN-grams of the concatenation by starting rune and
// gramsBefore[p] is the number of them starting before rune p. A run of words then yields
// every koppelN-gram lying inside its concatenation, including those that cross word
// boundaries.
type featureStream struct {
	ids         []int32
	start       []int32
	gramsBefore []int32 // compat only
	joined      string  // compat only: the concatenated words
	off         []int   // compat only: rune offsets of joined
	vocab       map[string]int32
}

// newWordStream lays out the features of words in word mode.
func newWordStream(words []string, vocab map[string]int32) *featureStream {
	fs := &featureStream{start: make([]int32, 0, len(words)+1), vocab: vocab}
	var off []int
	for _, w := range words {
		fs.start = append(fs.start, int32(len(fs.ids)))
		off = wordFeatures(w, off, func(f string) {
			if id, ok := vocab[f]; ok {
				fs.ids = append(fs.ids, id)
			}
		})
	}
	fs.start = append(fs.start, int32(len(fs.ids)))
	return fs
}

// newJoinedStream lays out the features of words in joined (compat) mode.
func newJoinedStream(words []string, vocab map[string]int32) *featureStream {
	fs := &featureStream{start: make([]int32, 0, len(words)+1), vocab: vocab}
	runes := 0
	for _, w := range words {
		fs.start = append(fs.start, int32(runes))
		runes += utf8.RuneCountInString(w)
	}
	fs.start = append(fs.start, int32(runes))
	fs.joined = strings.Join(words, "")
	fs.off = runeOffsets(fs.joined, make([]int, 0, runes+1))
	fs.gramsBefore = make([]int32, runes+1)
	for p := range runes {
		fs.gramsBefore[p] = int32(len(fs.ids))
		if p+koppelN > runes {
			continue
		}
		if id, ok := vocab[fs.joined[fs.off[p]:fs.off[p+koppelN]]]; ok {
			fs.ids = append(fs.ids, id)
		}
	}
	fs.gramsBefore[runes] = int32(len(fs.ids))
	return fs
}

// words is the number of words laid out.
func (fs *featureStream) words() int { return len(fs.start) - 1 }

// window returns the feature ids of the words s…s+n-1; buf (capacity ≥ 1) holds the single
// feature of a joined run of at most koppelN runes.
func (fs *featureStream) window(s, n int, buf []int32) []int32 {
	if lo, hi, ok := fs.span(s, n); ok {
		return fs.ids[lo:hi]
	}
	lo, hi := int(fs.start[s]), int(fs.start[s+n])
	switch {
	case hi > lo:
		// The reference keeps a whole "word" of at most n characters as one feature.
		id, ok := fs.vocab[fs.joined[fs.off[lo]:fs.off[hi]]]
		if !ok {
			return nil
		}
		return append(buf[:0], id)
	default:
		return nil
	}
}

// span returns the bounds of the feature ids of the words s…s+n-1 in ids when they form that
// slice: always in word mode, and in joined mode when the run has more than koppelN runes.
func (fs *featureStream) span(s, n int) (lo, hi int, ok bool) {
	lo, hi = int(fs.start[s]), int(fs.start[s+n])
	if fs.off == nil {
		return lo, hi, true
	}
	if hi-lo > koppelN {
		return int(fs.gramsBefore[lo]), int(fs.gramsBefore[hi-koppelN+1]), true
	}
	return 0, 0, false
}
