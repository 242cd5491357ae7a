// Package corpus reads document collections into Documents; the formats a config may name are
// listed once, in registry.CorpusFormats (`dptext list` shows them). Every reader returns documents in a deterministic order and reports what
// it skipped, with counts per reason, so nothing is dropped silently; malformed input is an
// error naming the file (and the line, for JSON Lines).
package corpus

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"dptext/internal/filehash"
)

// Limits on what the readers read: an input beyond one is refused with an error naming it.
const (
	// MaxDocumentBytes bounds one document as stored: a line of a JSON Lines file, a .txt
	// file of a "dir" corpus, a PAN text or a State of the Union address file. 4 MiB holds a
	// long novel (War and Peace is 3.2 MB) and keeps a run's memory for one document to a few
	// hundred MB (a 50 MB document took 2.4 GB).
	MaxDocumentBytes = 4 << 20
	// MaxCorpusBytes bounds a corpus file or folder, all its files together.
	MaxCorpusBytes = 2 << 30
	// maxMetadataBytes bounds a PAN metadata file (collection-info.json, problem-info.json,
	// ground truth, fandoms).
	maxMetadataBytes = 16 << 20
)

// corpusLimitWhat names what MaxCorpusBytes bounds, for messages.
const corpusLimitWhat = "a corpus file or folder (corpus.MaxCorpusBytes)"

// NewRecorder returns the filehash.Recorder through which a reader reads the corpus at path
// (a file or folder) for its fingerprint, bounded by MaxCorpusBytes.
func NewRecorder(path string) *filehash.Recorder {
	return filehash.NewRecorder(path, corpusLimitWhat, MaxCorpusBytes)
}

// documentLimitWhat names what MaxDocumentBytes bounds, for messages.
const documentLimitWhat = "one document (corpus.MaxDocumentBytes)"

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
// "ann " and "ann" are one author), a document whose text is byte-identical to an earlier one's
// is dropped, and writers are given one identity. A text is written by one person, so two
// authors that share a byte-identical text are one writer (PAN 2019 reuses writers across
// problems under different candidate names): they are merged under the name that occurs first
// in reading order, and every document of either gets it. An open-set placeholder (see
// OpenSetAuthor: the writers of a problem's open-set texts are several unknown people) is never
// merged as a whole; an open-set document that shares its text with a named author's is that
// author's. Each merge is recorded in skipped under its own reason naming both authors and the
// shared text, so the log and the manifest list it.
func finish(docs []Document, skipped Skipped) []Document {
	seen := map[[sha256.Size]byte]int{} // text → index in out of the document kept with it
	order := map[string]int{}           // author → index of its first document
	parent := map[string]string{}       // union-find over named authors
	var find func(a string) string
	find = func(a string) string {
		p, ok := parent[a]
		if !ok || p == a {
			return a
		}
		r := find(p)
		parent[a] = r
		return r
	}
	out := docs[:0]
	for i, d := range docs {
		if t := strings.TrimSpace(d.Author); t != d.Author {
			d.Author = t
			skipped.add(reasonAuthorTrimmed)
		}
		if _, ok := order[d.Author]; !ok {
			order[d.Author] = i
		}
		sum := sha256.Sum256([]byte(d.Text))
		k, dup := seen[sum]
		if !dup {
			seen[sum] = len(out)
			out = append(out, d)
			continue
		}
		skipped.add(reasonDuplicate)
		kept := &out[k]
		if len(d.Meta) > 0 {
			kept.Meta = addDuplicate(kept.Meta, d)
		}
		switch a, b := find(kept.Author), find(d.Author); {
		case a == b:
		case OpenSetAuthor(kept.Author) && OpenSetAuthor(d.Author):
		case OpenSetAuthor(kept.Author):
			skipped.add(fmt.Sprintf(openSetPrefix+"%s is byte-identical to %s by %s: attributed to %s", kept.ID, d.ID, d.Author, d.Author))
			kept.Author = d.Author
		case OpenSetAuthor(d.Author):
			skipped.add(fmt.Sprintf(openSetPrefix+"%s is byte-identical to %s by %s (dropped as its duplicate)", d.ID, kept.ID, kept.Author))
		default:
			if order[b] < order[a] {
				a, b = b, a
			}
			parent[b] = a
			skipped.add(fmt.Sprintf(mergePrefix+"%s and %s share a byte-identical text (%s = %s): merged as %s", a, b, kept.ID, d.ID, a))
		}
	}
	for i := range out {
		if !OpenSetAuthor(out[i].Author) {
			out[i].Author = find(out[i].Author)
		}
	}
	return out
}

// duplicatesKey is the Meta key under which finish keeps the ID and Meta of the documents
// dropped as byte-identical duplicates of a kept one (JSON), so that a protocol reading the
// source's own structure (PAN problems) can place the text in every problem it belongs to.
const duplicatesKey = "dptext:duplicates"

type duplicateRecord struct {
	ID    string            `json:"id"`
	Topic string            `json:"topic"`
	Meta  map[string]string `json:"meta"`
}

// addDuplicate records dropped document d in the Meta of the document kept in its place.
func addDuplicate(meta map[string]string, d Document) map[string]string {
	var recs []duplicateRecord
	if meta[duplicatesKey] != "" {
		_ = json.Unmarshal([]byte(meta[duplicatesKey]), &recs) // written below, always valid
	}
	own := maps.Clone(d.Meta)
	delete(own, duplicatesKey)
	recs = append(recs, duplicateRecord{ID: d.ID, Topic: d.Topic, Meta: own})
	data, _ := json.Marshal(recs) // strings only: cannot fail
	out := maps.Clone(meta)
	if out == nil {
		out = map[string]string{}
	}
	out[duplicatesKey] = string(data)
	return out
}

// WithDuplicates returns d followed by the documents a reader dropped as byte-identical
// duplicates of it (their IDs and Meta, d's text and author: one text has one writer), in
// reading order.
func WithDuplicates(d Document) []Document {
	out := []Document{d}
	if d.Meta[duplicatesKey] == "" {
		return out
	}
	var recs []duplicateRecord
	if err := json.Unmarshal([]byte(d.Meta[duplicatesKey]), &recs); err != nil {
		return out
	}
	for _, r := range recs {
		out = append(out, Document{ID: r.ID, Author: d.Author, Topic: r.Topic, Text: d.Text, Meta: r.Meta})
	}
	return out
}

// IsMergeReason reports whether a reason of Skipped records two authors merged because they
// share a byte-identical text.
func IsMergeReason(reason string) bool { return strings.HasPrefix(reason, mergePrefix) }

// IsOpenSetReason reports whether a reason of Skipped records an open-set text found to be a
// named author's (byte-identical to one of theirs).
func IsOpenSetReason(reason string) bool { return strings.HasPrefix(reason, openSetPrefix) }

// Prefixes of the reasons finish records for merged identities.
const (
	mergePrefix   = "authors "
	openSetPrefix = "open-set text "
)
