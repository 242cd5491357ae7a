// Package corpus reads document collections into Documents: JSON Lines, a topic/author
// directory tree, the PAN authorship-attribution layouts, and the State of the Union addresses
// of the default data. Every reader returns documents in a deterministic order and reports what
// it skipped, with counts per reason, so nothing is dropped silently; malformed input is an
// error naming the file (and the line, for JSON Lines).
package corpus

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Document is one text with its author and topic labels.
type Document struct {
	ID     string
	Author string
	Topic  string
	Text   string
	// Meta holds any further fields of the source (e.g. year, party, problem, file).
	Meta map[string]string
}

// Skipped counts the items a reader left out or changed, by reason (e.g. "blank line",
// "byte-identical duplicate of an earlier document (dropped)").
type Skipped map[string]int

// add counts one skipped item.
func (s Skipped) add(reason string) { s[reason]++ }

// Total is the number of skipped items over all reasons.
func (s Skipped) Total() int {
	n := 0
	for _, c := range s {
		n += c
	}
	return n
}

// String lists the counts by reason in alphabetical order, e.g. "3 × blank line; 1 × <UNK> author".
func (s Skipped) String() string {
	if len(s) == 0 {
		return "nothing skipped"
	}
	parts := make([]string, 0, len(s))
	for _, reason := range slices.Sorted(maps.Keys(s)) {
		parts = append(parts, fmt.Sprintf("%d × %s", s[reason], reason))
	}
	return strings.Join(parts, "; ")
}

// checkText rejects text that is not valid UTF-8 or is blank; where names the file (and line).
func checkText(where, text string) error {
	if !utf8.ValidString(text) {
		return fmt.Errorf("corpus: %s: text is not valid UTF-8", where)
	}
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("corpus: %s: text is empty", where)
	}
	return nil
}

// Reasons recorded by finish.
const (
	reasonAuthorTrimmed = "author name with leading or trailing spaces (trimmed; kept)"
	reasonDuplicate     = "byte-identical duplicate of an earlier document (dropped)"
)

// finish applies what every reader does last: authors lose surrounding white space (so that
// "ann " and "ann" are one author), and a document whose text is byte-identical to an earlier
// one's is dropped. Both are counted in skipped.
func finish(docs []Document, skipped Skipped) []Document {
	seen := map[[sha256.Size]byte]bool{}
	out := docs[:0]
	for _, d := range docs {
		if t := strings.TrimSpace(d.Author); t != d.Author {
			d.Author = t
			skipped.add(reasonAuthorTrimmed)
		}
		sum := sha256.Sum256([]byte(d.Text))
		if seen[sum] {
			skipped.add(reasonDuplicate)
			continue
		}
		seen[sum] = true
		out = append(out, d)
	}
	return out
}
