package scrub

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"dptext/internal/text"
	"dptext/mechanisms"
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
)

// ScrubOptions configure NewScrub.
type ScrubOptions struct {
	// Action is "replace" (default: a placeholder such as [NAME] per item) or "remove".
	Action string `toml:"action"`
	// Detect lists the kinds to scrub: "names", "numbers" (default both).
	Detect []string `toml:"detect"`
	// MinNameCount is how often a word must appear capitalised in mid-sentence in the corpus to
	// enter the gazetteer of names (default 2).
	MinNameCount int `toml:"min_name_count"`
	// MinCapitalShare is the share of a word's mid-sentence occurrences that must be capitalised
	// for it to enter the gazetteer, in (0, 1] (default 0.9: "Congress" but not "Federal",
	// which is written both ways).
	MinCapitalShare float64 `toml:"min_capital_share"`
}

// DefaultScrubOptions replaces names and numbers by placeholders.
func DefaultScrubOptions() ScrubOptions {
	return ScrubOptions{Action: ScrubReplace, Detect: []string{ScrubNames, ScrubNumbers},
		MinNameCount: 2, MinCapitalShare: 0.9}
}

// Scrub removes or replaces personal data the way PII scrubbers do (the baseline SynTF compared
// against; SPEC §4.4). It gives no privacy guarantee. What it detects:
//
//   - numbers: a token containing a digit ("1999", "4th", "555-0123");
//   - names: documents reaching mechanisms are lowercase, so case cannot reveal a name there.
//     Instead a gazetteer is learned from a raw corpus: a word enters it when it appears
//     capitalised in mid-sentence (not first in the text, nor after . ! ? or a blank line) at
//     least MinNameCount times and in at least MinCapitalShare of its mid-sentence
//     occurrences; stopwords and single letters never do.
//
// E-mail addresses and URLs are not detected: the tokenizer has already split them into
// pieces in the normalised token sequences mechanisms receive.
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
		case ScrubNames, ScrubNumbers:
			s.detect[k] = true
		default:
			return nil, fmt.Errorf(`scrub: detect = %q: want a list of "names" and "numbers"`, k)
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
func (s *Scrub) Guarantee([]string) mechanisms.Guarantee {
	return mechanisms.Guarantee{Kind: mechanisms.KindNone}
}

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
