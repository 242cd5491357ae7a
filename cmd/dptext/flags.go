package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"dptext/corpus"
	"dptext/embeddings"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/experiments/runner"
	"dptext/internal/configfile"
	"dptext/internal/datasets"
	"dptext/internal/text"
)

// embeddingFlags are the flags of commands that load word vectors outside a config.
type embeddingFlags struct {
	path, format, vocabulary string
	topK                     int
}

// embeddingsFormatNames lists the names of embeddings.Formats ("a, b, c").
func embeddingsFormatNames() string {
	var names []string
	for _, f := range embeddings.Formats {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

func addEmbeddingFlags(fs *flag.FlagSet, defaultTopK int) *embeddingFlags {
	e := &embeddingFlags{}
	fs.StringVar(&e.path, "embeddings", "", "word vectors `FILE` (default: the GloVe-100d default data)")
	fs.StringVar(&e.format, "format", "auto", "`FORMAT` of --embeddings: "+embeddingsFormatNames()+" or auto (by file extension)")
	fs.StringVar(&e.vocabulary, "vocabulary", runconfig.VocabularyWords, `"words" (single normalised words only) or "all"`)
	fs.IntVar(&e.topK, "top-k", defaultTopK, "keep the `K` most frequent words (0: all)")
	return e
}

func (e *embeddingFlags) load(ctx context.Context, log io.Writer) (*embeddings.Store, error) {
	if e.vocabulary != runconfig.VocabularyWords && e.vocabulary != runconfig.VocabularyAll {
		return nil, usagef("--vocabulary %q: want words or all", e.vocabulary)
	}
	if e.topK < 0 || e.topK > configfile.MaxCount {
		return nil, usagef("--top-k %d: want 0 (all) to %d", e.topK, configfile.MaxCount)
	}
	dataDir, err := datasets.DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	cfg := runconfig.EmbeddingsConfig{Path: e.path, Format: e.format, TopK: e.topK, Vocabulary: e.vocabulary}
	store, _, err := runner.LoadEmbeddings(ctx, cfg, e.path, dataDir, log)
	return store, err
}

// mechanismFlags are the flags that choose a mechanism outside a config: --mechanism, --epsilon
// and its repeatable parameter flag, key=value as in a config's params table.
type mechanismFlags struct {
	name    string
	epsilon report.Epsilon
	params  *paramFlag
	// inline is more parameters as the body of a TOML inline table (dptext audit's --params);
	// a key set both here and by a parameter flag is an error.
	inline string
}

// addMechanismFlags adds the mechanism flags to fs: --mechanism (default defaultName, help
// nameHelp), --epsilon, and the parameter flag paramName (--param, or --mechanism-param where
// --param is another component's).
func addMechanismFlags(fs *flag.FlagSet, defaultName, nameHelp, paramName string) *mechanismFlags {
	m := &mechanismFlags{params: newParamFlag()}
	fs.StringVar(&m.name, "mechanism", defaultName, nameHelp)
	fs.Var(epsilonFlag{&m.epsilon}, "epsilon", "ε of the mechanism, a `FLOAT`")
	fs.Var(m.params, paramName, "mechanism parameter `key=value` (repeatable), as in a config's params table")
	return m
}

// decode decodes the mechanism's parameters, checking its name and ε: a mechanism without ε
// refuses --epsilon as a config refuses its epsilons key (`audit --mechanism random
// --epsilon inf` printed "at ε = inf"), one with ε takes only its range.
func (m *mechanismFlags) decode() (*registry.MechanismOptions, error) {
	if e, ok := registry.Mechanisms[m.name]; ok && !e.UsesEpsilon && m.epsilon.Set() {
		return nil, usagef("--epsilon %s: mechanism %q takes no ε; leave --epsilon out", m.epsilon, m.name)
	}
	body := m.params.String()
	if body != "" && m.inline != "" {
		body += ", "
	}
	return registry.DecodeMechanism(m.name, m.epsilon, body+m.inline)
}

// epsilonFlag reads --epsilon into a report.Epsilon (absent unless given).
type epsilonFlag struct{ e *report.Epsilon }

func (f epsilonFlag) String() string {
	if f.e == nil {
		return ""
	}
	return f.e.String()
}

func (f epsilonFlag) Set(s string) error {
	e, err := report.ParseEpsilon(s)
	if err == nil && !e.Set() {
		err = fmt.Errorf("empty: want a number")
	}
	*f.e = e
	return err
}

// paramFlag collects repeated --param key=value flags as the body of a TOML inline table
// (see configfile.ParseParams); values are TOML values (strings may be given without quotes,
// they are then taken as written); a key given twice keeps its last value.
type paramFlag struct {
	keys   []string
	values map[string]string // key → its value in TOML
}

func newParamFlag() *paramFlag { return &paramFlag{values: map[string]string{}} }

func (p *paramFlag) String() string {
	if p == nil {
		return ""
	}
	items := make([]string, len(p.keys))
	for i, k := range p.keys {
		items[i] = k + " = " + p.values[k]
	}
	return strings.Join(items, ", ")
}

func (p *paramFlag) Set(s string) error {
	key, val, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(key) == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	val = strings.TrimSpace(val)
	var doc map[string]any
	if _, err := toml.Decode("v = "+val, &doc); err != nil {
		// Not a TOML value: the text itself, as a TOML literal string where it can be one.
		if strings.ContainsAny(val, "'\n\r") {
			return fmt.Errorf("%q: the value is not TOML and holds a quote or line break: write it as a quoted TOML string", s)
		}
		val = "'" + val + "'"
	}
	p.set(strings.TrimSpace(key), val)
	return nil
}

// set sets key to val (a TOML value).
func (p *paramFlag) set(key, val string) {
	if _, ok := p.values[key]; !ok {
		p.keys = append(p.keys, key)
	}
	p.values[key] = val
}

// setDefault sets key to val (a TOML value) unless a flag set it.
func (p *paramFlag) setDefault(key, val string) {
	if _, ok := p.values[key]; !ok {
		p.set(key, val)
	}
}

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for i, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return nil, fmt.Errorf("%q is not a finite number > 0", f)
		}
		if j := slices.Index(out, v); j >= 0 {
			return nil, fmt.Errorf("entries %d and %d are both %v: want distinct values", j+1, i+1, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// defaultTrainingCorpus is the normalised text of the default corpus (the State of the Union
// addresses), which components that learn from text (expmech's context language model, SynTF's
// idf) use when a single document is privatised outside an experiment.
func defaultTrainingCorpus(ctx context.Context, log io.Writer) ([][]string, error) {
	dir, err := datasets.DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	paths, err := datasets.Ensure(ctx, dir, "sotu", log)
	if err != nil {
		return nil, err
	}
	docs, _, err := corpus.ReadSOTU(paths.Corpus, corpus.DefaultSOTUOptions())
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(docs))
	for i, d := range docs {
		out[i] = text.NormalizeText(d.Text)
	}
	return out, nil
}
