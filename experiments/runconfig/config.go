// Package runconfig decodes a run's config once into typed values and validates every one of
// them (limits, names against the registry, each component's params into its options), so
// that what runs downstream reads typed values only.
package runconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"dptext/corpus"
	"dptext/embeddings"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/report/render"
	"dptext/internal/configfile"
	"dptext/internal/filehash"
	"dptext/mechanisms/distinguish"
)

// Config is one experiment, decoded strictly from TOML: unknown keys are errors.
type Config struct {
	Name        string `toml:"name"`
	Description string `toml:"description"`
	Seed        Seed   `toml:"seed"`
	Repeats     int    `toml:"repeats"`

	Corpus     registry.CorpusConfig `toml:"corpus"`
	Embeddings EmbeddingsConfig      `toml:"embeddings"`
	Protocol   ProtocolConfig        `toml:"protocol"`
	Sets       []SetConfig           `toml:"sets"`
	Mechanisms []ComponentConfig     `toml:"mechanisms"`
	Scorers    []ComponentConfig     `toml:"scorers"`
	Gains      []GainConfig          `toml:"gains"`
	Report     render.Layout         `toml:"report"`
	// Audit, when present, adds an audited ε lower bound per mechanism and ε (see AuditConfig).
	Audit *AuditConfig `toml:"audit"`
	// Distinguish, when present, adds the empirical document-level ε of every mechanism and ε
	// (see DistinguishConfig).
	Distinguish *DistinguishConfig `toml:"distinguish"`
	// Verdict, when present, compares the mechanisms at matched attack success (see
	// VerdictConfig).
	Verdict *VerdictConfig `toml:"verdict"`

	// Path is the file the config was read from; Text its content and Hash the SHA-256 of it.
	Path string `toml:"-"`
	Text string `toml:"-"`
	Hash string `toml:"-"`

	lines configfile.Lines
	// written holds the dotted keys the text gives (array indices dropped), so that an absent
	// key takes its default while a written one, 0 included, is validated as given.
	written map[string]bool
	// skipFileChecks: validation does not look the corpus and embeddings paths up.
	skipFileChecks bool
	// mechOptions[i] and scorerOptions[i] are the params of Mechanisms[i] and Scorers[i],
	// decoded once by validation.
	mechOptions   []*registry.MechanismOptions
	scorerOptions []registry.ScorerDecoded
}

// EmbeddingsConfig names the word vectors.
type EmbeddingsConfig struct {
	// Format names one of embeddings.Formats (the default: wink, the default data when Path is
	// empty), or "auto" (by file extension).
	Format string `toml:"format"`
	Path   string `toml:"path"`
	// TopK keeps the K most frequent words (0: all), counted after the vocabulary filter.
	TopK int `toml:"top_k"`
	// Vocabulary is "words" (default: keep only rows that are a single normalised word — no
	// punctuation, stopwords or capitals) or "all".
	Vocabulary string `toml:"vocabulary"`
}

// Vocabulary filters of EmbeddingsConfig.
const (
	VocabularyWords = "words"
	VocabularyAll   = "all"
)

// Protocol kinds.
const (
	// ProtocolAuthorship is the Fernandes et al. split (SPEC §3): known texts and unknown
	// snippets of each author, truncated to a common length; topic classifiers trained on
	// other authors.
	ProtocolAuthorship = "authorship"
	// ProtocolClassification is the SynTF evaluation (Weggenmann and Kerschbaum 2018, §4.2):
	// the documents of the top-k authors by document count are split into training and test
	// documents; the whole corpus is privatised and both the analyst (topic) and the attacker
	// (author) train and test on the private documents.
	ProtocolClassification = "classification"
)

// ProtocolPAN is PAN 2018/2019's cross-domain attribution setting, problem by problem: each
// [[sets]] entry is one problem of a PAN collection; the attackers train on its candidates'
// known texts (of other fandoms than the unknown texts: cross-domain), the mechanisms privatise
// its unknown texts, and every unknown text is asked about, open-set ones included.
const ProtocolPAN = "pan"

// Resample values of [protocol] resample: what each repeat draws anew besides the mechanisms'
// and scorers' randomness.
const (
	// ResampleNone keeps one draw of authors and stories for every repeat.
	ResampleNone = "none"
	// ResampleSnippets keeps the evaluation authors and redraws each author's stories (and so
	// the known texts and snippets cut from them) per repeat.
	ResampleSnippets = "snippets"
	// ResampleAuthors redraws the evaluation authors from the eligible pool and their stories
	// per repeat (the topic training data follows: other authors' texts).
	ResampleAuthors = "authors"
)

// ProtocolConfig chooses and parameterises the evaluation protocol.
type ProtocolConfig struct {
	// Kind is "authorship" (default), "classification" or "pan" (ProtocolPAN).
	Kind             string `toml:"kind"`
	KnownWords       int    `toml:"known_words"`
	UnknownWords     int    `toml:"unknown_words"`
	StoriesPerAuthor int    `toml:"stories_per_author"`
	// SnippetsPerAuthor is the number of disjoint evaluation snippets of unknown_words words
	// per author (0: one per story, the paper's protocol). They are taken round by round: in
	// round r, the r-th window from the end of each of the author's stories in the topic —
	// first the stories whose beginning is a known text (never overlapping it), then the
	// author's other stories — so that snippets come from different documents where the corpus
	// has them, else from disjoint windows of one. Authors with too few windows are not
	// eligible.
	SnippetsPerAuthor int `toml:"snippets_per_author"`
	// TopicTrainWords is the length in words of each training chunk of the topic classifiers.
	TopicTrainWords int `toml:"topic_train_words"`
	// TopicTrainMax caps the number of topic training chunks per topic (0: no cap).
	TopicTrainMax int `toml:"topic_train_max"`
	// ValidationShare of each topic's training documents (all chunks of a document together)
	// is held out to report validation accuracy.
	ValidationShare float64 `toml:"validation_share"`
	// Topics chooses the topics the evaluation authors are balanced over: a number N (the N
	// topics with the most eligible authors; default 2) or a list of topic names.
	Topics Topics `toml:"topics"`
	// Resample is what each repeat draws anew: "none" (default), "snippets" (each author's
	// stories) or "authors" (the evaluation authors and their stories).
	Resample string `toml:"resample"`

	// The classification protocol's keys:
	// ChunkWords cuts documents into units of that many words (0: whole documents).
	ChunkWords int `toml:"chunk_words"`
	// MinTopicsPerAuthor is 1 for the SynTF paper's "any" scenario, 2 for "multi".
	MinTopicsPerAuthor int `toml:"min_topics_per_author"`
	// TestShare of each suspect's documents is held out for testing.
	TestShare float64 `toml:"test_share"`
	// MaxDocsPerAuthor caps each suspect's documents (0: no cap).
	MaxDocsPerAuthor int `toml:"max_docs_per_author"`
}

// SetConfig is one author set of the table (the paper's 20- and 50-author sets).
type SetConfig struct {
	Name    string `toml:"name"`
	Authors int    `toml:"authors"`
	// AllAuthors takes every eligible author instead of a number (authorship protocol): the
	// largest set the balance over topics allows (every eligible author when the topics have
	// equally many), leaving each topic a writer outside the set for topic training.
	AllAuthors bool `toml:"all_authors"`
}

// ComponentConfig names a registry entry and its parameters.
type ComponentConfig struct {
	Name string `toml:"name"`
	// Label distinguishes two uses of the same component (defaults to Name).
	Label    string           `toml:"label"`
	Epsilons []report.Epsilon `toml:"epsilons"`
	// Protocol of an authorship attacker: "static" (trained on original known texts) or
	// "adaptive" (known texts privatised by the same mechanism first).
	Protocol string `toml:"protocol"`
	// Params is the component's params table, left undecoded by the config's decoding:
	// validation decodes it once into the component's typed options (see Params).
	Params toml.Primitive `toml:"params"`
	// params is the table, ready to decode (its Record keys cached private documents).
	params configfile.Params
}

// GainConfig names a derived scorer: the analyst's advantage over the attacker (the "gain ΔF1"
// of Weggenmann and Kerschbaum 2018, Table 3), written as scorer Name with metrics `delta_f1`
// (utility macro F1 − attack macro F1) and `delta_relative_f1` (the same for F1 relative to
// the none mechanism).
type GainConfig struct {
	Name    string `toml:"name"`
	Utility string `toml:"utility"`
	Attack  string `toml:"attack"`
}

// ID is the label if given, else the name.
func (c ComponentConfig) ID() string {
	if c.Label != "" {
		return c.Label
	}
	return c.Name
}

// Grid lists the ε of a configured mechanism, one cell each: its epsilons, or one absent ε.
func (c ComponentConfig) Grid() []report.Epsilon {
	if len(c.Epsilons) == 0 {
		return []report.Epsilon{report.NoEpsilon}
	}
	return c.Epsilons
}

// ParamsRecord is the params table as written (nil: none), the record that keys cached
// private documents; options are never decoded from it (see MechanismOptions).
func (c ComponentConfig) ParamsRecord() map[string]any { return c.params.Record() }

// DefaultProtocol is the paper's protocol: known = first 2000 words, unknown = last 1000.
func DefaultProtocol() ProtocolConfig {
	return ProtocolConfig{Kind: ProtocolAuthorship, KnownWords: 2000, UnknownWords: 1000, StoriesPerAuthor: 1,
		TopicTrainWords: 2000, ValidationShare: 0.2, MinTopicsPerAuthor: 1, TestShare: 0.4, Topics: Topics{Count: 2}, Resample: ResampleNone}
}

// LoadConfig reads and validates a config file. Component names and parameters are checked
// against the registry (see CheckComponents for building them).
func LoadConfig(path string) (*Config, error) {
	src, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, src)
}

// ParseConfig decodes and validates config text; path is used in errors.
func ParseConfig(path, src string) (*Config, error) { return parseConfig(path, src, true) }

// ParseSavedConfig is ParseConfig without looking the corpus and embeddings paths up: the
// config saved in a run's manifest, read on another machine or in another folder.
func ParseSavedConfig(path, src string) (*Config, error) { return parseConfig(path, src, false) }

// parseConfig is ParseConfig; without checkFiles the corpus and embeddings paths are not
// looked up (a config saved in a run's manifest, read on another machine or folder).
func parseConfig(path, src string, checkFiles bool) (*Config, error) {
	cfg := &Config{skipFileChecks: !checkFiles, Repeats: 1, Seed: 1, Protocol: DefaultProtocol(), Report: render.DefaultLayout()}
	cfg.Corpus = registry.CorpusConfig{Format: registry.CorpusFormats[0].Name, Topic: "party", EraSplitYear: 1900}
	cfg.Embeddings = EmbeddingsConfig{Format: embeddings.FormatWink, Vocabulary: VocabularyWords}
	if err := checkConfigShape(path, src); err != nil {
		return nil, err
	}
	md, err := toml.Decode(src, cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// A value the decoder or a type's UnmarshalTOML refused names its key: the key
			// written on that line, when it is the decoder's last key.
			key := ""
			if p, k := configfile.Locate(src).At(pe.Position.Line); pe.LastKey != "" && configfile.StripIndices(configfile.JoinKey(p, k)) == pe.LastKey {
				key = configfile.JoinKey(p, k)
			}
			return nil, &configfile.Error{File: path, Line: pe.Position.Line, Key: key, Msg: pe.Message}
		}
		if m := decodeErrorRE.FindStringSubmatch(err.Error()); m != nil {
			// A value of the wrong type ("incompatible types: TOML value has type bool;
			// destination has type float"): the decoder names its line and key in the text.
			line, _ := strconv.Atoi(m[1])
			key := m[2]
			if p, k := configfile.Locate(src).At(line); configfile.StripIndices(configfile.JoinKey(p, k)) == key {
				key = configfile.JoinKey(p, k) // with its array index: "sets[1].name"
			}
			return nil, &configfile.Error{File: path, Line: line, Key: key, Msg: m[3]}
		}
		return nil, &configfile.Error{File: path, Msg: err.Error()}
	}
	cfg.Path, cfg.Text = path, src
	doc := configfile.NewDocument(path, src, md)
	for k, comps := range [][]ComponentConfig{cfg.Mechanisms, cfg.Scorers} {
		kind := []string{"mechanisms", "scorers"}[k]
		for i := range comps {
			if comps[i].params, err = doc.Params(fmt.Sprintf("%s[%d]", kind, i), comps[i].Name, comps[i].Params); err != nil {
				return nil, err
			}
		}
	}
	sum := sha256.Sum256([]byte(src))
	cfg.Hash = hex.EncodeToString(sum[:])
	cfg.lines = doc.Lines
	cfg.written = map[string]bool{}
	for _, k := range md.Keys() {
		cfg.written[k.String()] = true
	}
	var und []toml.Key
	for _, k := range md.Undecoded() {
		// Keys inside a component's params table (nested tables included) are checked
		// against the component's options when they are decoded (configfile.Params).
		if len(k) > 2 && (k[0] == "mechanisms" || k[0] == "scorers") && k[1] == "params" {
			continue
		}
		und = append(und, k)
	}
	if len(und) > 0 {
		k := und[0]
		table := strings.Join(k[:len(k)-1], ".")
		return nil, &configfile.Error{File: path, Line: cfg.lines.Find(table, k[len(k)-1]), Key: k.String(),
			Msg: "unknown key; valid keys here: " + strings.Join(validKeys(cfg, table), ", ")}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// decodeErrorRE reads the line, key and message of a decoding error that is not a
// toml.ParseError: "toml: line 3 (last key "verdict.alpha"): incompatible types: …".
var decodeErrorRE = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)

// validKeys lists the keys a table of the config accepts.
func validKeys(cfg *Config, table string) []string {
	var v any = cfg
	switch table {
	case "":
	case "corpus":
		v = &cfg.Corpus
	case "embeddings":
		v = &cfg.Embeddings
	case "protocol":
		v = &cfg.Protocol
	case "sets":
		v = &SetConfig{}
	case "mechanisms", "scorers":
		v = &ComponentConfig{}
	case "gains":
		v = &GainConfig{}
	case "report":
		v = &cfg.Report
	case "verdict":
		v = &VerdictConfig{}
	default:
		if strings.HasPrefix(table, "report.") {
			return []string{"(see [report] in the README)"}
		}
		return nil
	}
	return configfile.TOMLKeys(v)
}

// isWritten reports whether the config's text gives key in table ("verdict"; "" for the top
// level): a numeric key left at 0 takes its default only when it is absent.
func (c *Config) isWritten(table, key string) bool { return c.written[configfile.JoinKey(table, key)] }

// ErrAt is an error about key in the table at path (indexed, as "sets[1]"), at the key's line.
func (c *Config) ErrAt(path, key, format string, args ...any) error {
	name := key
	if path != "" {
		name = path + "." + key
	}
	return &configfile.Error{File: c.Path, Line: c.lines.Near(path, key), Key: name, Msg: fmt.Sprintf(format, args...)}
}

// Limits on the counts of a config: far above any real experiment, they turn a typo such as
// repeats = 9999999999999 into an error instead of a run that exhausts memory.
const (
	MaxRepeats    = 10_000    // repeats
	MaxComponents = 1_000     // sets, mechanisms, scorers, gains; ε per mechanism
	MaxCells      = 1_000_000 // sets × Σ(ε per mechanism) × repeats
	// MaxWorkers bounds the goroutines a command line asks for (run --jobs, slurm --cpus,
	// bench decode --workers): far above any machine's cores, it turns a typo into an error
	// instead of a process that does not finish starting them.
	MaxWorkers = 1024
)

// Cells is the number of cells of the config: sets × mechanism settings × repeats.
func (c *Config) Cells() int { return len(c.Sets) * c.mechanismSettings() * c.Repeats }

// mechanismSettings is Σ over the mechanisms of their ε (1 for a mechanism without ε).
func (c *Config) mechanismSettings() int {
	n := 0
	for _, m := range c.Mechanisms {
		n += max(1, len(m.Epsilons))
	}
	return n
}

// The limit on the other counts (authors, word counts, top_k and other caps) is
// configfile.MaxCount, which params tables share.

// checkName accepts a run name that is one plain path element (it names results/<name>/).
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("missing: every config needs a name (used for results/<name>/)")
	case name == "." || name == ".." || strings.HasPrefix(name, "."):
		return fmt.Errorf("%q: must not start with a dot (it names the folder results/<name>/)", name)
	case strings.ContainsAny(name, `/\ :`) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%q must not contain slashes, colons, spaces or control characters", name)
	case len(name) > 100:
		return fmt.Errorf("%d bytes: at most 100", len(name))
	}
	return nil
}

// Seed is a config's random seed. Its decoding refuses a negative number, which the TOML
// decoder would wrap around to a huge unsigned one.
type Seed uint64

// UnmarshalTOML decodes an integer ≥ 0.
func (s *Seed) UnmarshalTOML(v any) error {
	n, ok := v.(int64)
	switch {
	case !ok:
		return fmt.Errorf("%#v: want an integer from 0 to %d", v, math.MaxInt64)
	case n < 0:
		return fmt.Errorf("%d: want an integer from 0 to %d", n, math.MaxInt64)
	}
	*s = Seed(n)
	return nil
}

// checkCounts bounds every count of the config (see configfile.MaxCount and the other limits).
func (c *Config) checkCounts() error {
	type count struct {
		path, key string
		v, limit  int
	}
	p := c.Protocol
	counts := []count{
		{"", "repeats", c.Repeats, MaxRepeats}, {"", "sets", len(c.Sets), MaxComponents},
		{"", "mechanisms", len(c.Mechanisms), MaxComponents}, {"", "scorers", len(c.Scorers), MaxComponents},
		{"", "gains", len(c.Gains), MaxComponents}, {"embeddings", "top_k", c.Embeddings.TopK, configfile.MaxCount},
		{"protocol", "known_words", p.KnownWords, configfile.MaxCount}, {"protocol", "unknown_words", p.UnknownWords, configfile.MaxCount},
		{"protocol", "stories_per_author", p.StoriesPerAuthor, configfile.MaxCount}, {"protocol", "snippets_per_author", p.SnippetsPerAuthor, configfile.MaxCount},
		{"protocol", "topic_train_words", p.TopicTrainWords, configfile.MaxCount},
		{"protocol", "topic_train_max", p.TopicTrainMax, configfile.MaxCount}, {"protocol", "chunk_words", p.ChunkWords, configfile.MaxCount},
		{"protocol", "min_topics_per_author", p.MinTopicsPerAuthor, configfile.MaxCount}, {"protocol", "max_docs_per_author", p.MaxDocsPerAuthor, configfile.MaxCount},
	}
	for i, s := range c.Sets {
		counts = append(counts, count{fmt.Sprintf("sets[%d]", i), "authors", s.Authors, configfile.MaxCount})
	}
	for i, m := range c.Mechanisms {
		counts = append(counts, count{fmt.Sprintf("mechanisms[%d]", i), "epsilons", len(m.Epsilons), MaxComponents})
	}
	for _, k := range counts {
		if k.v > k.limit {
			return c.ErrAt(k.path, k.key, "%d: at most %d", k.v, k.limit)
		}
	}
	if n := c.Cells(); n > MaxCells {
		return c.ErrAt("", "repeats", "%d sets × %d mechanism settings × %d repeats = %d cells: at most %d", len(c.Sets), c.mechanismSettings(), c.Repeats, n, MaxCells)
	}
	return nil
}

// plotName is the file-system-safe form the report gives a set name in plot file names
// (report.safeName): two set names with one form would overwrite each other's plots.
func plotName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

func (c *Config) validate() error {
	if err := checkName(c.Name); err != nil {
		return c.ErrAt("", "name", "%v", err)
	}
	if c.Repeats < 1 {
		return c.ErrAt("", "repeats", "%d: want at least 1", c.Repeats)
	}
	if err := c.checkCounts(); err != nil {
		return err
	}
	if err := c.validateData(); err != nil {
		return err
	}
	if err := c.validateProtocol(); err != nil {
		return err
	}
	if err := c.validateSets(); err != nil {
		return err
	}
	if len(c.Mechanisms) == 0 {
		return &configfile.Error{File: c.Path, Key: "mechanisms", Msg: "missing: add at least one [[mechanisms]] table (e.g. name = \"none\")"}
	}
	if len(c.Scorers) == 0 {
		return &configfile.Error{File: c.Path, Key: "scorers", Msg: "missing: add at least one [[scorers]] table (e.g. name = \"sr-nn\")"}
	}
	if err := c.validateMechanisms(); err != nil {
		return err
	}
	if err := c.validateScorers(); err != nil {
		return err
	}
	if err := c.validateGains(); err != nil {
		return err
	}
	if err := c.validateAudit(); err != nil {
		return err
	}
	if err := c.validateDistinguish(); err != nil {
		return err
	}
	if err := c.validateVerdict(); err != nil {
		return err
	}
	if err := c.validateReport(); err != nil {
		return err
	}
	return c.checkPANSets()
}

// validateData checks the [corpus] and [embeddings] tables (and that their files exist,
// unless the config is a saved one).
func (c *Config) validateData() error {
	format, ok := registry.LookupCorpusFormat(c.Corpus.Format)
	switch {
	case !ok:
		return c.ErrAt("corpus", "format", "%q: want %s", c.Corpus.Format, registry.QuoteList(registry.CorpusFormatNames()))
	case format.Dataset != "":
		if c.Corpus.Path != "" {
			// The reader reads the fetched dataset and nothing else: a path here was silently
			// ignored, running the default corpus under a config naming another.
			return c.ErrAt("corpus", "path", "%q: format %q reads the %s dataset fetched by `dptext data`, never a path; remove path, or give the format of the file or folder (%s)",
				c.Corpus.Path, c.Corpus.Format, format.Dataset, registry.QuoteList(pathFormats()))
		}
		if c.Corpus.Topic != "party" && c.Corpus.Topic != "era" {
			return c.ErrAt("corpus", "topic", "%q: want \"party\" or \"era\"", c.Corpus.Topic)
		}
		// The reader refused these only once the run read the corpus.
		if c.Corpus.Topic == "era" && (c.Corpus.EraSplitYear < 1791 || c.Corpus.EraSplitYear > 2100) {
			return c.ErrAt("corpus", "era_split_year", "%d: want a year in 1791…2100", c.Corpus.EraSplitYear)
		}
		if c.Corpus.Topic != "era" && c.isWritten("corpus", "era_split_year") {
			return c.ErrAt("corpus", "era_split_year", "applies to topic = \"era\" only (topic is %q): remove it, or set topic = \"era\"", c.Corpus.Topic)
		}
	case c.Corpus.Path == "":
		return c.ErrAt("corpus", "path", "missing: format %q reads a file or folder", c.Corpus.Format)
	case !c.skipFileChecks:
		// What the reader would refuse at once: a device, a pipe, a file above the limit.
		if err := filehash.CheckInput(c.Resolve(c.Corpus.Path), corpus.MaxCorpusBytes, "a corpus file or folder (corpus.MaxCorpusBytes)"); err != nil {
			return c.ErrAt("corpus", "path", "%v", err)
		}
		// A folder where the format reads a file, or the reverse, is what the reader refuses
		// first; check said ok to both.
		if info, err := os.Stat(c.Resolve(c.Corpus.Path)); err == nil && format.PathKind != "" {
			is := registry.PathFile
			if info.IsDir() {
				is = registry.PathFolder
			}
			if is != format.PathKind {
				return c.ErrAt("corpus", "path", "%s is %s: format %q reads %s", c.Corpus.Path, is, c.Corpus.Format, format.PathKind)
			}
		}
	}
	if c.Corpus.Language != "" && c.Corpus.Format != "pan" {
		return c.ErrAt("corpus", "language", "applies to format \"pan\" only (it selects PAN problems by collection-info.json)")
	}
	if !slices.Contains(registry.EmbeddingsFormatNames(), c.Embeddings.Format) {
		return c.ErrAt("embeddings", "format", "%q: want %s", c.Embeddings.Format, registry.QuoteList(registry.EmbeddingsFormatNames()))
	}
	if c.Embeddings.Path == "" && c.Embeddings.Format != embeddings.FormatWink {
		return c.ErrAt("embeddings", "path", "missing: format %q reads a file (only \"wink\" has default data)", c.Embeddings.Format)
	}
	if c.Embeddings.Path != "" && !c.skipFileChecks {
		if err := filehash.CheckInput(c.Resolve(c.Embeddings.Path), embeddings.MaxFileBytes, "a vector file (embeddings.MaxFileBytes)"); err != nil {
			return c.ErrAt("embeddings", "path", "%v", err)
		}
		if info, err := os.Stat(c.Resolve(c.Embeddings.Path)); err == nil && info.IsDir() {
			return c.ErrAt("embeddings", "path", "%s is a folder: want a vector file", c.Embeddings.Path)
		}
	}
	if c.Embeddings.Vocabulary != VocabularyWords && c.Embeddings.Vocabulary != VocabularyAll {
		return c.ErrAt("embeddings", "vocabulary", "%q: want \"words\" or \"all\"", c.Embeddings.Vocabulary)
	}
	if c.Embeddings.TopK < 0 {
		return c.ErrAt("embeddings", "top_k", "%d: want 0 (all words) or a positive count", c.Embeddings.TopK)
	}
	return nil
}

// pathFormats are the corpus formats that read the file or folder at [corpus] path.
func pathFormats() []string {
	var names []string
	for _, name := range registry.CorpusFormatNames() {
		if f, _ := registry.LookupCorpusFormat(name); f.Dataset == "" {
			names = append(names, name)
		}
	}
	return names
}

// validateProtocol checks the [protocol] table.
func (c *Config) validateProtocol() error {
	p := c.Protocol
	switch {
	case p.Kind != ProtocolAuthorship && p.Kind != ProtocolClassification && p.Kind != ProtocolPAN:
		return c.ErrAt("protocol", "kind", "%q: want \"authorship\" (Fernandes et al.), \"classification\" (SynTF) or \"pan\" (PAN 2018/2019 cross-domain attribution, problem by problem)", p.Kind)
	case p.Kind == ProtocolPAN && c.Corpus.Format != "pan":
		return c.ErrAt("protocol", "kind", "\"pan\" reads the problems of a PAN collection: want [corpus] format = \"pan\", not %q", c.Corpus.Format)
	case p.Kind == ProtocolPAN && p.Resample != ResampleNone:
		return c.ErrAt("protocol", "resample", "%q: the pan protocol's texts are fixed by each problem; want \"none\" (repeats vary only the mechanisms and scorers)", p.Resample)
	case p.ChunkWords < 0:
		return c.ErrAt("protocol", "chunk_words", "%d: want 0 (whole documents) or a positive word count", p.ChunkWords)
	case p.MinTopicsPerAuthor < 1:
		return c.ErrAt("protocol", "min_topics_per_author", "%d: want 1 (\"any\") or more (2: \"multi\")", p.MinTopicsPerAuthor)
	case !(p.TestShare > 0 && p.TestShare < 1):
		return c.ErrAt("protocol", "test_share", "%v: want a share in (0, 1)", p.TestShare)
	case p.MaxDocsPerAuthor < 0:
		return c.ErrAt("protocol", "max_docs_per_author", "%d: want 0 (no cap) or a positive count", p.MaxDocsPerAuthor)
	case p.KnownWords < 1:
		return c.ErrAt("protocol", "known_words", "%d: want a positive word count", p.KnownWords)
	case p.UnknownWords < 1:
		return c.ErrAt("protocol", "unknown_words", "%d: want a positive word count", p.UnknownWords)
	case p.StoriesPerAuthor < 1:
		return c.ErrAt("protocol", "stories_per_author", "%d: want at least 1", p.StoriesPerAuthor)
	case p.SnippetsPerAuthor < 0:
		return c.ErrAt("protocol", "snippets_per_author", "%d: want 0 (one per story) or a positive count", p.SnippetsPerAuthor)
	case p.SnippetsPerAuthor > 0 && p.Kind != ProtocolAuthorship:
		return c.ErrAt("protocol", "snippets_per_author", "applies to the authorship protocol only")
	case p.TopicTrainWords < 1:
		return c.ErrAt("protocol", "topic_train_words", "%d: want a positive word count", p.TopicTrainWords)
	case p.TopicTrainMax < 0:
		return c.ErrAt("protocol", "topic_train_max", "%d: want 0 (no cap) or a positive count", p.TopicTrainMax)
	case !(p.ValidationShare >= 0 && p.ValidationShare < 1):
		return c.ErrAt("protocol", "validation_share", "%v: want a share in [0, 1)", p.ValidationShare)
	}
	if p.Kind != ProtocolClassification {
		// Only the classification protocol reads these: elsewhere a value was silently unused.
		for _, k := range []string{"chunk_words", "min_topics_per_author", "test_share", "max_docs_per_author"} {
			if c.isWritten("protocol", k) {
				return c.ErrAt("protocol", k, "applies to the classification protocol only (kind = %q does not read it): remove it, or set kind = %q", p.Kind, ProtocolClassification)
			}
		}
	}
	return c.validateTopicsResample()
}

// validateSets checks the [[sets]] tables against the protocol.
func (c *Config) validateSets() error {
	p := c.Protocol
	if len(c.Sets) == 0 {
		return &configfile.Error{File: c.Path, Key: "sets", Msg: "missing: add at least one [[sets]] table with name and authors"}
	}
	seen := map[string]int{} // plot name → index of the set
	for i, s := range c.Sets {
		path := fmt.Sprintf("sets[%d]", i)
		if s.Name == "" {
			return c.ErrAt(path, "name", "missing")
		}
		if formulaLike(s.Name) {
			return c.ErrAt(path, "name", "%q begins with %q, which spreadsheets run as a formula in results.csv and the tables: begin it with a letter or digit", s.Name, s.Name[:1])
		}
		if j, ok := seen[plotName(s.Name)]; ok {
			if c.Sets[j].Name == s.Name {
				return c.ErrAt(path, "name", "%q used twice (also line %d)", s.Name, c.lines.Near(fmt.Sprintf("sets[%d]", j), "name"))
			}
			return c.ErrAt(path, "name", "%q and %q (line %d) would share plot files (%s): use letters, digits, '.', '_' and '-' to tell them apart",
				s.Name, c.Sets[j].Name, c.lines.Near(fmt.Sprintf("sets[%d]", j), "name"), plotName(s.Name))
		}
		seen[plotName(s.Name)] = i
		switch {
		case s.AllAuthors && (s.Authors != 0 || c.lines.Line(path, "authors") > 0):
			return c.ErrAt(path, "all_authors", "with authors = %d: give one of them", s.Authors)
		case s.AllAuthors && c.Protocol.Kind != ProtocolAuthorship:
			return c.ErrAt(path, "all_authors", "applies to the authorship protocol only")
		case p.Kind == ProtocolPAN && s.Authors != 0 && s.Authors < 2:
			return c.ErrAt(path, "authors", "%d: want the problem's number of candidates, or leave authors out", s.Authors)
		case p.Kind != ProtocolPAN && !s.AllAuthors && s.Authors < 2:
			return c.ErrAt(path, "authors", "%d: want at least 2 authors (or all_authors = true)", s.Authors)
		}
		if err := setTextsFit(c, s); err != nil {
			return c.ErrAt(path, "authors", "%v", err)
		}
	}
	return nil
}

// Topics is [protocol] topics: a number (Count, the topics with the most eligible authors)
// or a list of names (Names); exactly one is set.
type Topics struct {
	Count int
	Names []string
}

// UnmarshalTOML decodes a number from 2 to 1000 or a list of at least two distinct names.
func (t *Topics) UnmarshalTOML(v any) error {
	*t = Topics{}
	switch x := v.(type) {
	case int64:
		if x < 2 || x > 1000 {
			return fmt.Errorf("%d: want a number of topics from 2 to 1000, or a list of topic names", x)
		}
		t.Count = int(x)
	case []any:
		for i, e := range x {
			name, ok := e.(string)
			if !ok || strings.TrimSpace(name) == "" {
				return fmt.Errorf("entry %d is %#v: want topic names (strings)", i+1, e)
			}
			if slices.Contains(t.Names, name) {
				return fmt.Errorf("%q appears twice", name)
			}
			t.Names = append(t.Names, name)
		}
		if len(t.Names) < 2 {
			return fmt.Errorf("%d name(s): want at least 2 topics", len(t.Names))
		}
	default:
		return fmt.Errorf("%v: want a number (the N topics with the most eligible authors) or a list of topic names", v)
	}
	return nil
}

// validateTopicsResample checks resample against the protocol ([protocol] topics is checked
// by its decoding, Topics.UnmarshalTOML).
func (c *Config) validateTopicsResample() error {
	p := &c.Protocol
	switch p.Resample {
	case ResampleNone:
	case ResampleSnippets, ResampleAuthors:
		if p.Kind == ProtocolClassification {
			return c.ErrAt("protocol", "resample", "%q applies to the authorship protocol; the classification protocol takes \"none\"", p.Resample)
		}
	default:
		return c.ErrAt("protocol", "resample", "%q: want \"none\", \"snippets\" (redraw each author's stories per repeat) or \"authors\" (redraw the evaluation authors and their stories)", p.Resample)
	}
	return nil
}

// checkIdentity checks that comp names a registered component (one of valid) and that its
// label (or name) is not used twice among the components of its kind, recorded in ids.
func (c *Config) checkIdentity(path, kind string, comp ComponentConfig, valid []string, ids map[string]bool) error {
	if !slices.Contains(valid, comp.Name) {
		return c.ErrAt(path, "name", "unknown %s %q; valid: %s", kind, comp.Name, strings.Join(valid, ", "))
	}
	if comp.Label == "" && c.lines.Line(path, "label") > 0 {
		return c.ErrAt(path, "label", `"": want a label, or leave label out (the %s is then named %q)`, kind, comp.Name)
	}
	if ids[comp.ID()] {
		return c.ErrAt(path, "label", "%s %q appears twice: give one a distinct label", kind, comp.ID())
	}
	ids[comp.ID()] = true
	if formulaLike(comp.Label) {
		return c.ErrAt(path, "label", "%q begins with %q, which spreadsheets run as a formula in results.csv and the tables: begin it with a letter or digit", comp.Label, comp.Label[:1])
	}
	return nil
}

// formulaLike reports whether a name written into the CSV outputs would begin a spreadsheet
// formula (=, +, -, @, tab, carriage return); such set names and labels are refused (the
// corpus's names in predictions.csv are neutralised instead, see report.CSVText).
func formulaLike(s string) bool { return report.CSVText(s) != s }

func (c *Config) validateMechanisms() error {
	ids := map[string]bool{}
	c.mechOptions = nil
	for i, m := range c.Mechanisms {
		path := fmt.Sprintf("mechanisms[%d]", i)
		if err := c.checkIdentity(path, "mechanism", m, sortedKeys(registry.Mechanisms), ids); err != nil {
			return err
		}
		entry := registry.Mechanisms[m.Name]
		if m.Protocol != "" {
			return c.ErrAt(path, "protocol", "is a scorer option, not a mechanism option")
		}
		if entry.UsesEpsilon && len(m.Epsilons) == 0 {
			return c.ErrAt(path, "epsilons", "missing: mechanism %q needs a list of ε > 0, e.g. epsilons = [30, 20, 10]", m.Name)
		}
		if !entry.UsesEpsilon && len(m.Epsilons) > 0 {
			return c.ErrAt(path, "epsilons", "mechanism %q takes no ε; remove the key", m.Name)
		}
		for _, e := range m.Epsilons {
			if err := entry.Epsilons.Check(e.Value()); err != nil {
				return c.ErrAt(path, "epsilons", "mechanism %q: %v", m.Name, err)
			}
		}
		if i, j := firstRepeat(m.Epsilons); i > 0 {
			return c.ErrAt(path, "epsilons", "%v appears twice (entries %d and %d): want distinct ε, one cell each", m.Epsilons[i-1], j, i)
		}
		o, err := entry.Decode(m.params)
		if err != nil {
			return err
		}
		c.mechOptions = append(c.mechOptions, o)
	}
	return nil
}

func (c *Config) validateScorers() error {
	ids := map[string]bool{}
	c.scorerOptions = nil
	for i, s := range c.Scorers {
		path := fmt.Sprintf("scorers[%d]", i)
		if err := c.checkIdentity(path, "scorer", s, sortedKeys(registry.Scorers), ids); err != nil {
			return err
		}
		entry := registry.Scorers[s.Name]
		if len(s.Epsilons) > 0 {
			return c.ErrAt(path, "epsilons", "is a mechanism option, not a scorer option")
		}
		if entry.Task == registry.TaskTopic && c.Protocol.Kind == ProtocolPAN {
			return c.ErrAt(path, "name", "%q is a topic classifier, but in the pan protocol every unknown text of a problem has the same topic (its target fandom): there is no topic to classify; use authorship attackers and utility measures", s.Name)
		}
		if s.Protocol == "" && c.lines.Line(path, "protocol") > 0 {
			return c.ErrAt(path, "protocol", `"": want "static" or "adaptive", or leave protocol out`)
		}
		switch s.Protocol {
		case "", "static":
		case "adaptive":
			if entry.Task == registry.TaskUtility || (entry.Task == registry.TaskTopic && c.Protocol.Kind == ProtocolAuthorship) {
				return c.ErrAt(path, "protocol", "\"adaptive\" applies to authorship attackers (and, in the classification protocol, topic classifiers); %q is a %s scorer", s.Name, entry.Task)
			}
		default:
			return c.ErrAt(path, "protocol", "%q: want \"static\" or \"adaptive\"", s.Protocol)
		}
		o, err := entry.Decode(s.params)
		if err != nil {
			return err
		}
		c.scorerOptions = append(c.scorerOptions, o)
	}
	return nil
}

// MechanismOptions returns the decoded params of mechanism i (decoded now if the config's
// components were changed after validation).
func (c *Config) MechanismOptions(i int) (*registry.MechanismOptions, error) {
	if i < len(c.mechOptions) {
		return c.mechOptions[i], nil
	}
	return registry.Mechanisms[c.Mechanisms[i].Name].Decode(c.Mechanisms[i].params)
}

// ScorerOptions returns the decoded params of scorer i (see mechanismOptions).
func (c *Config) ScorerOptions(i int) (registry.ScorerDecoded, error) {
	if i < len(c.scorerOptions) {
		return c.scorerOptions[i], nil
	}
	return registry.Scorers[c.Scorers[i].Name].Decode(c.Scorers[i].params)
}

func (c *Config) validateGains() error {
	ids := map[string]string{}
	for _, s := range c.Scorers {
		ids[s.ID()] = registry.Scorers[s.Name].Task
	}
	seen := map[string]int{}
	for i, g := range c.Gains {
		path := fmt.Sprintf("gains[%d]", i)
		if j, ok := seen[g.Name]; ok && g.Name != "" {
			return c.ErrAt(path, "name", "%q: [[gains]] %d and %d share the name: want distinct names (their rows would mix)", g.Name, j+1, i+1)
		}
		seen[g.Name] = i
		switch {
		case g.Name == "":
			return c.ErrAt(path, "name", "missing: the scorer name of the gain rows")
		case ids[g.Name] != "":
			return c.ErrAt(path, "name", "%q is already a scorer", g.Name)
		case ids[g.Utility] != registry.TaskTopic:
			return c.ErrAt(path, "utility", "%q is not a topic classifier of this config", g.Utility)
		case ids[g.Attack] != registry.TaskAuthor:
			return c.ErrAt(path, "attack", "%q is not an authorship attacker of this config", g.Attack)
		}
	}
	return nil
}

// ScorerIDs maps every scorer of the config (gains included, as utility scorers) to its task.
func (c *Config) ScorerIDs() map[string]string {
	ids := map[string]string{}
	for _, s := range c.Scorers {
		ids[s.ID()] = registry.Scorers[s.Name].Task
	}
	for _, g := range c.Gains {
		if _, taken := ids[g.Name]; !taken {
			ids[g.Name] = registry.TaskUtility
		}
	}
	return ids
}

// Resolve interprets a relative path in the config relative to the config's folder.
func (c *Config) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(c.Path), p)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validateReport completes the [report] layout: without configured columns, every scorer of
// the config becomes a column (author and topic scorers show `correct`, utility scorers `mean`);
// with columns, each must name a configured scorer.
func (c *Config) validateReport() error {
	ids := c.ScorerIDs()
	if !c.lines.Has("report.columns") {
		c.Report.Columns = nil
		for _, s := range c.Scorers {
			col := render.Column{Scorer: s.ID(), Label: s.ID(), Task: ids[s.ID()]}
			if col.Task == registry.TaskUtility {
				col.Metric = report.MetricMean
			}
			c.Report.Columns = append(c.Report.Columns, col)
		}
	}
	for i, col := range c.Report.Columns {
		task, ok := ids[col.Scorer]
		if !ok {
			return c.ErrAt(fmt.Sprintf("report.columns[%d]", i), "scorer", "%q is not a scorer of this config; scorers: %s",
				col.Scorer, strings.Join(sortedKeys(ids), ", "))
		}
		if col.Task == "" {
			c.Report.Columns[i].Task = task
		}
		if formulaLike(col.Label) {
			return c.ErrAt(fmt.Sprintf("report.columns[%d]", i), "label", "%q begins with %q, which spreadsheets run as a formula in table.csv: begin it with a letter or digit", col.Label, col.Label[:1])
		}
	}
	if err := c.checkReportMetrics(); err != nil {
		return err
	}
	if err := c.Report.Validate(); err != nil {
		return c.reportError(err)
	}
	sets, mechs := map[string]bool{}, map[string]bool{}
	var setNames, mechNames []string
	for _, s := range c.Sets {
		sets[s.Name] = true
		setNames = append(setNames, s.Name)
	}
	for _, m := range c.Mechanisms {
		mechs[m.ID()] = true
		mechNames = append(mechNames, m.ID())
	}
	for i, r := range c.Report.References {
		path := fmt.Sprintf("report.references[%d]", i)
		if r.Authors == 0 && c.lines.Line(path, "authors") > 0 {
			// 0 reads as "not given": written, it is a value out of range.
			return c.ErrAt(path, "authors", "0: want the number of authors of the published set (≥ 1), or leave authors out")
		}
		if !sets[r.Set] {
			return c.ErrAt(path, "set", "%q is not a set of this config; sets: %s", r.Set, strings.Join(setNames, ", "))
		}
		if r.Mechanism != "" && !mechs[r.Mechanism] {
			return c.ErrAt(path, "mechanism", "%q is not a mechanism of this config; mechanisms: %s", r.Mechanism, strings.Join(mechNames, ", "))
		}
	}
	return nil
}

// reportKeyRE finds the key a layout error names: "report: columns[1].label …",
// "report: level = …", "report: frontier.attack …".
var reportKeyRE = regexp.MustCompile(`^report: ([a-z_]+)(\[\d+\])?(?:\.([a-z_]+))?`)

// reportError places an error of render.Layout.Validate at the line of the key it names (else
// at [report]'s header).
func (c *Config) reportError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "report: ")
	m := reportKeyRE.FindStringSubmatch(err.Error())
	if m == nil {
		return &configfile.Error{File: c.Path, Line: c.lines.Line("report", ""), Key: "report", Msg: msg}
	}
	path, key := "report", m[1]
	switch {
	case m[2] != "" && m[3] != "": // columns[1].label
		path, key = "report."+m[1]+m[2], m[3]
	case m[3] != "": // frontier.attack
		path, key = "report."+m[1], m[3]
	}
	return &configfile.Error{File: c.Path, Line: c.lines.Near(path, key), Key: path + "." + key, Msg: msg}
}

// privacyMetricNames lists the privacy and diagnostic metrics this config's runs may write:
// report.PrivacyMetrics, and with a [distinguish] table the rows of its distances (see
// experiments/runner/distinguish.go).
func (c *Config) privacyMetricNames() []string {
	names := slices.Clone(report.PrivacyMetrics)
	d := c.Distinguish
	if d == nil {
		return names
	}
	distances := d.Distances
	if distances == nil {
		distances = distinguish.DefaultOptions().Distances
	}
	names = append(names, "distinguish_pairs", "distinguish_releases")
	for _, k := range distances {
		n := distinguish.DistanceName(k)
		names = append(names, "distinguish_accuracy_"+n, "distinguish_eps_"+n, "distinguish_eps_"+n+"_lcb",
			"distinguish_eps_"+n+"_ucb", "distinguish_eps_"+n+"_ceiling")
	}
	return names
}

// checkReportMetrics refuses a [report] metric name no run writes, at its key's line with the
// valid names: metric, columns[i].metric and the frontier's metrics must be scorer metrics
// (report.ScorerMetrics), privacy_metrics privacy or diagnostic metrics (report.PrivacyMetrics),
// plot_metrics either. A typo there showed "–" in every column or silently dropped a table.
func (c *Config) checkReportMetrics() error {
	scorer, privacy := report.ScorerMetrics(), c.privacyMetricNames()
	either := slices.Concat(scorer, privacy)
	check := func(path, key, name string, valid []string, kind string) error {
		if name == "" || slices.Contains(valid, name) {
			return nil // an empty metric is Layout.Validate's to refuse, or a column's default
		}
		return c.ErrAt(path, key, "%q is not %s dptext writes; valid: %s", name, kind, strings.Join(valid, ", "))
	}
	const scorerKind, privacyKind = "a scorer metric", "a privacy or diagnostic metric"
	r := c.Report
	if err := check("report", "metric", r.Metric, scorer, scorerKind); err != nil {
		return err
	}
	for i, col := range r.Columns {
		if err := check(fmt.Sprintf("report.columns[%d]", i), "metric", col.Metric, scorer, scorerKind); err != nil {
			return err
		}
	}
	for i, m := range r.PlotMetrics {
		if err := check("report", "plot_metrics", m, either, fmt.Sprintf("(plot_metrics[%d]) a metric", i)); err != nil {
			return err
		}
	}
	for i, m := range r.PrivacyMetrics {
		if err := check("report", "privacy_metrics", m, privacy, fmt.Sprintf("(privacy_metrics[%d]) %s", i, privacyKind)); err != nil {
			return err
		}
	}
	if i, j := firstRepeat(r.PrivacyMetrics); i > 0 {
		return c.ErrAt("report", "privacy_metrics", "%q: entries %d and %d are both %q: want distinct metrics (a repeat prints its table twice)", r.PrivacyMetrics, j, i, r.PrivacyMetrics[i-1])
	}
	if r.Frontier.Attack != "" {
		if err := check("report.frontier", "attack_metric", r.Frontier.AttackMetric, scorer, scorerKind); err != nil {
			return err
		}
		if err := check("report.frontier", "utility_metric", r.Frontier.UtilityMetric, scorer, scorerKind); err != nil {
			return err
		}
	}
	return nil
}

// Adaptive reports whether scorer s trains on privatised texts: when it says so, and by
// default in the classification protocol (where the released corpus is all the analyst and
// the attacker get).
func (c *Config) Adaptive(s ComponentConfig) bool {
	if s.Protocol == "" {
		return c.Protocol.Kind == ProtocolClassification
	}
	return s.Protocol == "adaptive"
}
