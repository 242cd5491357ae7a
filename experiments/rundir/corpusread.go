package rundir

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"dptext/corpus"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
)

// CorpusRead describes the corpus a run actually read, for the manifest and the table
// captions: built from the documents, not from the config's words, so that a config whose
// [corpus] was changed is captioned with what it ran on.
type CorpusRead struct {
	// Format is the corpus format (corpus.format).
	Format string `json:"format"`
	// Collection names the data: the default dataset's name, else the base name of the path
	// (a PAN collection's folder, a directory corpus's root, a JSON Lines file).
	Collection string `json:"collection"`
	// Name is the format's own description of the data ("State of the Union addresses (topic
	// = era, before/from 1913)") for the default data, "" otherwise.
	Name string `json:"name,omitempty"`
	// Languages lists the languages the documents give (PAN), sorted; empty when unknown.
	Languages []string `json:"languages,omitempty"`
	// Documents, Authors and Topics count what was read: named authors only (an open-set
	// placeholder of PAN is no author), after identities were merged.
	Documents int `json:"documents"`
	Authors   int `json:"authors"`
	Topics    int `json:"topics"`
	// OpenSetDocuments counts documents whose writer is unknown (PAN's open-set texts).
	OpenSetDocuments int `json:"open_set_documents,omitempty"`
	// Changes lists what the reader skipped, dropped or merged (corpus.Skipped), e.g. the
	// authors merged because they share a byte-identical text.
	Changes map[string]int `json:"changes,omitempty"`
}

// DescribeCorpus summarises the documents read under the config's [corpus].
func DescribeCorpus(c registry.CorpusConfig, f registry.CorpusFormat, docs []corpus.Document, skipped corpus.Skipped) *CorpusRead {
	r := &CorpusRead{Format: c.Format, Documents: len(docs), Changes: map[string]int(skipped)}
	if f.Dataset != "" {
		r.Collection = f.Dataset
		r.Name = f.Caption(c)
	} else {
		r.Collection = filepath.Base(filepath.Clean(c.Path))
	}
	authors, topics, langs := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, d := range docs {
		if corpus.OpenSetAuthor(d.Author) {
			r.OpenSetDocuments++
		} else {
			authors[d.Author] = true
		}
		if d.Topic != "" {
			topics[d.Topic] = true
		}
		if l := d.Meta["language"]; l != "" {
			langs[strings.ToLower(l)] = true
		}
	}
	r.Authors, r.Topics = len(authors), len(topics)
	r.Languages = slices.Sorted(maps.Keys(langs))
	if len(r.Changes) == 0 {
		r.Changes = nil
	}
	return r
}

// identityChanges counts the authors merged into another because they share a text, and the
// open-set texts found to be a named author's.
func (r *CorpusRead) identityChanges() (merged, found int) {
	for reason, k := range r.Changes {
		switch {
		case corpus.IsMergeReason(reason):
			merged += k
		case corpus.IsOpenSetReason(reason):
			found += k
		}
	}
	return merged, found
}

// Sentence is the caption's corpus sentence, e.g. `Corpus: PAN collection "pan19" (language
// en), 1,234 documents by 20 authors over 5 topics (3 authors merged: they share a
// byte-identical text).`
func (r *CorpusRead) Sentence() string {
	var what string
	switch {
	case r.Name != "":
		what = r.Name
	default:
		kind := map[string]string{"pan": "PAN collection", "dir": "directory corpus", "jsonl": "JSON Lines corpus"}[r.Format]
		if kind == "" {
			kind = r.Format + " corpus"
		}
		what = fmt.Sprintf("%s %q", kind, r.Collection)
	}
	if len(r.Languages) > 0 {
		what += " (language " + strings.Join(r.Languages, ", ") + ")"
	}
	s := fmt.Sprintf("Corpus: %s, %s by %s over %s", what, runconfig.Plural(r.Documents, "document"), runconfig.Plural(r.Authors, "author"), runconfig.Plural(r.Topics, "topic"))
	if r.OpenSetDocuments > 0 {
		unknown := fmt.Sprintf("%d by unknown writers", r.OpenSetDocuments)
		if r.OpenSetDocuments == 1 {
			unknown = "1 by an unknown writer"
		}
		s = fmt.Sprintf("Corpus: %s, %s over %s: %d by %s and %s (open-set)", what, runconfig.Plural(r.Documents, "document"),
			runconfig.Plural(r.Topics, "topic"), r.Documents-r.OpenSetDocuments, runconfig.Plural(r.Authors, "author"), unknown)
	}
	merged, found := r.identityChanges()
	if merged > 0 {
		s += fmt.Sprintf("; %s merged with another author that shares a byte-identical text", runconfig.Plural(merged, "author"))
	}
	if found > 0 {
		s += fmt.Sprintf("; %s byte-identical to a named author's", runconfig.Plural(found, "open-set text"))
	}
	return s + "."
}
