package mechanisms

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"dptext/text"
)

// Scrub actions (ScrubOptions.Action).
const (
	ScrubReplace = "replace"
	ScrubRemove  = "remove"
)

// Kinds of personal data Scrub detects (ScrubOptions.Detect).
const (
	ScrubNames   = "names"
	ScrubNumbers = "numbers"
	ScrubEmails  = "emails"
	ScrubURLs    = "urls"
)

// ScrubOptions configure NewScrub.
type ScrubOptions struct {
	// Action is "replace" (default: a placeholder such as [NAME] per item) or "remove".
	Action string `toml:"action"`
	// Detect lists the kinds to scrub: "names", "numbers", "emails", "urls" (default all).
	Detect []string `toml:"detect"`
	// MinNameCount is how often a word must appear capitalised in mid-sentence in the corpus to
	// enter the gazetteer of names (default 2).
	MinNameCount int `toml:"min_name_count"`
	// MinCapitalShare is the share of a word's mid-sentence occurrences that must be capitalised
	// for it to enter the gazetteer, in (0, 1] (default 0.9: "Congress" but not "Federal",
	// which is written both ways).
	MinCapitalShare float64 `toml:"min_capital_share"`
}

// DefaultScrubOptions replaces names, numbers, e-mail addresses and URLs by placeholders.
func DefaultScrubOptions() ScrubOptions {
	return ScrubOptions{Action: ScrubReplace, Detect: []string{ScrubNames, ScrubNumbers, ScrubEmails, ScrubURLs},
		MinNameCount: 2, MinCapitalShare: 0.9}
}

// Scrub removes or replaces personal data the way PII scrubbers do (the baseline SynTF compared
// against; SPEC §4.4). It gives no privacy guarantee. What it detects:
//
//   - numbers: a token containing a digit ("1999", "4th", "555-0123"; digit groups such as
//     "1,234.5" are one item in raw text);
//   - names: documents reaching mechanisms are lowercase, so case cannot reveal a name there.
//     Instead a gazetteer is learned from a raw corpus: a word enters it when it appears
//     capitalised in mid-sentence (not first in the text, nor after . ! ? or a blank line) at
//     least MinNameCount times and in at least MinCapitalShare of its mid-sentence
//     occurrences; stopwords and single letters never do. In raw text (ScrubText) a word is also
//     a name when it is capitalised in mid-sentence in that text itself;
//   - e-mail addresses and URLs (http://, https://, ftp:// or www.): only in raw text
//     (ScrubText), by pattern. The tokenizer has already split them into pieces in a token
//     sequence, so Apply does not see them.
type Scrub struct {
	opts   ScrubOptions
	detect map[string]bool
	names  map[string]bool
}

// NewScrub builds the scrubber; rawCorpus (raw texts, e.g. the corpus before normalisation; may
// be empty) is where the gazetteer of names is learned.
func NewScrub(rawCorpus []string, opts ScrubOptions) (*Scrub, error) {
	if opts.Action != ScrubReplace && opts.Action != ScrubRemove {
		return nil, fmt.Errorf(`scrub: action = %q: want "replace" or "remove"`, opts.Action)
	}
	s := &Scrub{opts: opts, detect: map[string]bool{}}
	for _, k := range opts.Detect {
		switch k {
		case ScrubNames, ScrubNumbers, ScrubEmails, ScrubURLs:
			s.detect[k] = true
		default:
			return nil, fmt.Errorf(`scrub: detect = %q: want a list of "names", "numbers", "emails", "urls"`, k)
		}
	}
	if opts.MinNameCount < 1 {
		return nil, fmt.Errorf("scrub: min_name_count = %d: want ≥ 1", opts.MinNameCount)
	}
	if !(opts.MinCapitalShare > 0 && opts.MinCapitalShare <= 1) {
		return nil, fmt.Errorf("scrub: min_capital_share = %g: want a value in (0, 1]", opts.MinCapitalShare)
	}
	s.names = learnNames(rawCorpus, opts.MinNameCount, opts.MinCapitalShare)
	return s, nil
}

// learnNames returns the lowercase words that appear capitalised in mid-sentence often enough.
func learnNames(raws []string, minCount int, minShare float64) map[string]bool {
	capital, seen := map[string]int{}, map[string]int{}
	for _, raw := range raws {
		toks := text.Tokenize(raw)
		for i, t := range toks {
			w := strings.ToLower(t.Text)
			if !nameCandidate(w) || sentenceInitial(raw, toks, i) {
				continue
			}
			seen[w]++
			if startsUpper(t.Text) {
				capital[w]++
			}
		}
	}
	names := map[string]bool{}
	for w, c := range capital {
		if c >= minCount && float64(c) >= minShare*float64(seen[w]) {
			names[w] = true
		}
	}
	return names
}

// nameCandidate: a lowercase word that could be a name (not a stopword, not a single letter,
// no digits).
func nameCandidate(w string) bool {
	return utf8.RuneCountInString(w) > 1 && !text.IsStopword(w) && !strings.ContainsFunc(w, unicode.IsDigit)
}

// sentenceInitial reports whether toks[i] starts raw or follows ., !, ? or a blank line.
func sentenceInitial(raw string, toks []text.Token, i int) bool {
	gapStart := 0
	if i > 0 {
		gapStart = toks[i-1].End
	}
	gap := raw[gapStart:toks[i].Start]
	return i == 0 || strings.ContainsAny(gap, ".!?") || blankLine.MatchString(gap)
}

var blankLine = regexp.MustCompile(`\n[ \t\r]*\n`)

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// Names returns the gazetteer learned from the corpus, sorted.
func (s *Scrub) Names() []string {
	out := make([]string, 0, len(s.names))
	for w := range s.names {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// tokenKind is the kind of personal data the lowercase token w is, or "".
func (s *Scrub) tokenKind(w string) string {
	switch {
	case s.detect[ScrubNumbers] && strings.ContainsFunc(w, unicode.IsDigit):
		return ScrubNumbers
	case s.detect[ScrubNames] && s.names[w]:
		return ScrubNames
	}
	return ""
}

// placeholder is what replaces an item of the given kind, e.g. "[NAME]" ("[name]" in token
// sequences, which are lowercase).
func placeholder(kind string) string {
	return "[" + strings.ToUpper(strings.TrimSuffix(kind, "s")) + "]"
}

// Apply scrubs a normalised token sequence: numbers and gazetteer names are replaced by
// "[number]" and "[name]" or removed.
func (s *Scrub) Apply(_ *rand.Rand, doc []string) []string {
	out := make([]string, 0, len(doc))
	for _, w := range doc {
		kind := s.tokenKind(w)
		switch {
		case kind == "":
			out = append(out, w)
		case s.opts.Action == ScrubReplace:
			out = append(out, strings.ToLower(placeholder(kind)))
		}
	}
	return out
}

// Guarantee: none (a heuristic).
func (s *Scrub) Guarantee([]string) Guarantee { return Guarantee{Kind: KindNone} }

// Diagnose counts the scrubbed tokens of the original by kind: "scrubbed_names" and
// "scrubbed_numbers".
func (s *Scrub) Diagnose(original, _ []string) map[string]float64 {
	d := map[string]float64{"scrubbed_names": 0, "scrubbed_numbers": 0}
	for _, w := range original {
		if kind := s.tokenKind(w); kind != "" {
			d["scrubbed_"+kind]++
		}
	}
	return d
}

var (
	emailPattern = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	urlPattern   = regexp.MustCompile(`(?i)\b(?:https?://|ftp://|www\.)[^\s<>"]+`)
)

// numberSeparators may join two numeric tokens into one item in raw text ("1,234.5",
// "12/31/1999", "10:30").
const numberSeparators = " ,./:"

// ScrubText scrubs raw text for a person to read: e-mail addresses, URLs, numbers, gazetteer
// names and words capitalised in mid-sentence are replaced by [EMAIL], [URL], [NUMBER] and
// [NAME] (adjacent items of one kind become one placeholder: "John Smith" → "[NAME]") or
// removed, with the rest of the text kept as it is.
func (s *Scrub) ScrubText(raw string) string {
	var spans []text.Token
	var kinds []string
	var masked [][2]int // e-mail and URL spans, which the word tokens must not enter
	add := func(start, end int, kind string) {
		spans = append(spans, text.Token{Start: start, End: end})
		kinds = append(kinds, kind)
	}
	for _, kp := range []struct {
		kind    string
		pattern *regexp.Regexp
	}{{ScrubEmails, emailPattern}, {ScrubURLs, urlPattern}} {
		if !s.detect[kp.kind] {
			continue
		}
		for _, loc := range kp.pattern.FindAllStringIndex(raw, -1) {
			end := loc[0] + len(strings.TrimRight(raw[loc[0]:loc[1]], ".,;:!?)]}'\""))
			if !overlaps(masked, loc[0], end) {
				masked = append(masked, [2]int{loc[0], end})
				add(loc[0], end, kp.kind)
			}
		}
	}
	toks := text.Tokenize(raw)
	for i, t := range toks {
		if overlaps(masked, t.Start, t.End) {
			continue
		}
		w := strings.ToLower(t.Text)
		kind := s.tokenKind(w)
		if kind == "" && s.detect[ScrubNames] && nameCandidate(w) && startsUpper(t.Text) && !sentenceInitial(raw, toks, i) {
			kind = ScrubNames
		}
		if kind != "" {
			add(t.Start, t.End, kind)
		}
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return spans[a].Start - spans[b].Start })
	var merged []text.Token
	var repl []string
	lastKind := ""
	for _, i := range order {
		sp, kind := spans[i], kinds[i]
		if n := len(merged); n > 0 && kind == lastKind && joinable(raw[merged[n-1].End:sp.Start], kind) {
			merged[n-1].End = sp.End
			continue
		}
		merged = append(merged, sp)
		lastKind = kind
		if s.opts.Action == ScrubReplace {
			repl = append(repl, placeholder(kind))
		} else {
			repl = append(repl, "")
		}
	}
	return text.ReplaceSpans(raw, merged, repl)
}

// joinable reports whether two items of one kind separated by gap are one item.
func joinable(gap, kind string) bool {
	allowed := " \t"
	if kind == ScrubNumbers {
		allowed = numberSeparators
	}
	return gap != "" && strings.Trim(gap, allowed) == ""
}

func overlaps(spans [][2]int, start, end int) bool {
	for _, s := range spans {
		if start < s[1] && s[0] < end {
			return true
		}
	}
	return false
}
