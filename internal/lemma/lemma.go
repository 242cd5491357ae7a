// Package lemma reduces English word forms to their WordNet base forms with the Morphy
// procedure of WordNet's morphological processor (see WordNet's morphy(7WN) manual page):
// an inflected form is looked up in the part of speech's exception list (irregular forms such
// as "geese" → "goose"), and otherwise regular suffixes are detached ("-ies" → "-y", "-ing" →
// "-e" or "", …); a candidate counts only if it is a lemma in that part of speech's index.
// The dictionary files are read from a WordNet directory (Debian's wordnet-base package installs
// them in /usr/share/wordnet).
package lemma

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The parts of speech, in the order Lemma tries them.
var partsOfSpeech = []string{"noun", "verb", "adj", "adv"}

// suffixRule replaces an ending of an inflected form by the ending of its base form.
type suffixRule struct{ inflected, base string }

// detachment holds Morphy's regular suffix rules per part of speech (morphy(7WN)).
var detachment = map[string][]suffixRule{
	"noun": {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"},
		{"men", "man"}, {"ies", "y"}},
	"verb": {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""},
		{"ing", "e"}, {"ing", ""}},
	"adj": {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
	"adv": nil,
}

// Lemmatizer maps word forms to lemmas. It is immutable and safe for concurrent use.
type Lemmatizer struct {
	lemmas     map[string]map[string]bool     // per part of speech: the index's lemmas
	exceptions map[string]map[string][]string // per part of speech: inflected form → bases
}

// Load reads index.{noun,verb,adj,adv} and {noun,verb,adj,adv}.exc from dir. Every index file
// must exist; a missing exception file is an error too (an empty one is fine).
func Load(dir string) (*Lemmatizer, error) {
	if dir == "" {
		return nil, fmt.Errorf("lemma: no WordNet directory given")
	}
	l := &Lemmatizer{lemmas: map[string]map[string]bool{}, exceptions: map[string]map[string][]string{}}
	for _, pos := range partsOfSpeech {
		idx := map[string]bool{}
		err := readLines(filepath.Join(dir, "index."+pos), func(fields []string) {
			idx[fields[0]] = true
		})
		if err != nil {
			return nil, err
		}
		exc := map[string][]string{}
		err = readLines(filepath.Join(dir, pos+".exc"), func(fields []string) {
			if len(fields) >= 2 {
				exc[fields[0]] = fields[1:]
			}
		})
		if err != nil {
			return nil, err
		}
		l.lemmas[pos], l.exceptions[pos] = idx, exc
	}
	return l, nil
}

// readLines calls fn with the fields of every line of path that is not part of the license
// header (header lines start with a space).
func readLines(path string, fn func(fields []string)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("lemma: WordNet file missing or unreadable (install Debian's wordnet-base or set the WordNet directory): %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		if fields := strings.Fields(line); len(fields) > 0 {
			fn(fields)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("lemma: %s: %w", path, err)
	}
	return nil
}

// Candidates returns the base forms Morphy finds for word in one part of speech ("noun",
// "verb", "adj" or "adv"): the word itself if it is a lemma, its exception-list bases, or the
// forms from suffix detachment that are lemmas; without duplicates, in that order. Lookups use
// the lowercase form with spaces as underscores, as WordNet's files do.
func (l *Lemmatizer) Candidates(word, pos string) []string {
	key := strings.ReplaceAll(strings.ToLower(word), " ", "_")
	idx := l.lemmas[pos]
	var out []string
	add := func(c string) {
		for _, o := range out {
			if o == c {
				return
			}
		}
		out = append(out, c)
	}
	if idx[key] {
		add(key)
	}
	if bases, ok := l.exceptions[pos][key]; ok {
		for _, b := range bases {
			add(b)
		}
		return out
	}
	for _, r := range detachment[pos] {
		if stem, ok := strings.CutSuffix(key, r.inflected); ok && stem != "" {
			if c := stem + r.base; idx[c] {
				add(c)
			}
		}
	}
	return out
}

// Lemma returns the lemma of word: for the first part of speech (noun, verb, adjective,
// adverb) with any candidate, the shortest candidate (the first among equals). A word without
// candidates, or whose lemma is its own lowercase form, is returned unchanged (keeping its
// case); otherwise the lemma is lowercase.
func (l *Lemmatizer) Lemma(word string) string {
	for _, pos := range partsOfSpeech {
		cands := l.Candidates(word, pos)
		if len(cands) == 0 {
			continue
		}
		best := cands[0]
		for _, c := range cands[1:] {
			if len(c) < len(best) {
				best = c
			}
		}
		if best == strings.ToLower(word) {
			return word
		}
		return best
	}
	return word
}
