package runner

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dptext/corpus"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/filehash"
	"dptext/internal/fixtures"
	"dptext/internal/learn"
	"dptext/mechanisms"
)

// The steps of ARCHITECTURE.md "Adding a component", followed for one component of each kind
// that lives in this package's tables: a mechanism, an authorship attacker, a topic classifier,
// a utility measure and a corpus format (embeddings formats: see embeddings/extend_test.go).
// Each is one type plus one entry; a config then names them and a run scores them.

// reverseOptions are the options of the example mechanism.
type reverseOptions struct {
	// Keep leaves the first Keep words in place.
	Keep int `toml:"keep"`
}

// reverse releases a document's words in reverse order (no privacy).
type reverse struct{ keep int }

func (r reverse) Apply(_ *rand.Rand, doc []string) []string {
	out := slices.Clone(doc)
	if r.keep < len(out) {
		slices.Reverse(out[r.keep:])
	}
	return out
}

func (reverse) Guarantee([]string) mechanisms.Guarantee {
	return mechanisms.Guarantee{Kind: mechanisms.KindNone}
}

// firstWord labels a document like the training document that shares its most frequent word
// (an example attacker and, by majority, topic classifier).
type firstWord struct{ byWord map[string]string }

func (f *firstWord) Fit(_ *rand.Rand, docs [][]string, labels []string) error {
	f.byWord = map[string]string{}
	for i, d := range docs {
		for _, w := range d {
			if _, ok := f.byWord[w]; !ok {
				f.byWord[w] = labels[i]
			}
		}
	}
	return nil
}

func (f *firstWord) Predict(_ *rand.Rand, docs [][]string) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		votes := map[string]int{}
		for _, w := range d {
			if l, ok := f.byWord[w]; ok {
				votes[l]++
			}
		}
		for _, l := range slices.Sorted(maps.Keys(votes)) {
			if votes[l] > votes[out[i]] {
				out[i] = l
			}
		}
	}
	return out
}

// lengthRatio is an example utility measure: |private| / |original|.
type lengthRatio struct{}

func (lengthRatio) Measure(original, private []string) float64 {
	return float64(len(private)) / float64(len(original))
}

func TestAddingOneComponentOfEachKind(t *testing.T) {
	registry.Mechanisms["reverse"] = registry.MechanismEntry{Version: "1", Description: "example: words reversed", Releases: registry.ReleaseTokens,
		Spec: registry.MechanismSpec[reverseOptions]{
			Defaults: func() reverseOptions { return reverseOptions{Keep: 0} },
			Build: func(_ *registry.Env, _ float64, o reverseOptions) (mechanisms.Mechanism, error) {
				if o.Keep < 0 {
					return nil, fmt.Errorf("keep = %d: want ≥ 0", o.Keep)
				}
				return reverse{o.Keep}, nil
			},
		}}
	registry.Scorers["first-word"] = registry.ScorerEntry{Version: "1", Task: registry.TaskAuthor, Description: "example attacker",
		Classifier: registry.ScorerSpec[registry.NoOptions, learn.Classifier]{
			Defaults: func() registry.NoOptions { return registry.NoOptions{} },
			Build:    func(*registry.Env, registry.NoOptions) (learn.Classifier, error) { return &firstWord{}, nil },
		}}
	registry.Scorers["first-word-topic"] = registry.ScorerEntry{Version: "1", Task: registry.TaskTopic, Description: "example topic classifier",
		Classifier: registry.ScorerSpec[registry.NoOptions, learn.Classifier]{
			Defaults: func() registry.NoOptions { return registry.NoOptions{} },
			Build:    func(*registry.Env, registry.NoOptions) (learn.Classifier, error) { return &firstWord{}, nil },
		}}
	registry.Scorers["length-ratio"] = registry.ScorerEntry{Version: "1", Task: registry.TaskUtility, Description: "example utility measure",
		Metric: registry.ScorerSpec[registry.NoOptions, registry.PairMetric]{
			Defaults: func() registry.NoOptions { return registry.NoOptions{} },
			Build:    func(*registry.Env, registry.NoOptions) (registry.PairMetric, error) { return lengthRatio{}, nil },
		}}
	formats := registry.CorpusFormats
	registry.CorpusFormats = append(slices.Clone(registry.CorpusFormats), registry.CorpusFormat{Name: "tsv", Description: "example: author<TAB>topic<TAB>text per line",
		Read: func(_ registry.CorpusConfig, path string, _ bool, files *filehash.Recorder) ([]corpus.Document, corpus.Skipped, error) {
			f, err := files.Open(path, corpus.MaxCorpusBytes, "a corpus file")
			if err != nil {
				return nil, nil, err
			}
			defer f.Close()
			var docs []corpus.Document
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				p := strings.SplitN(sc.Text(), "\t", 3)
				docs = append(docs, corpus.Document{ID: fmt.Sprint(len(docs)), Author: p[0], Topic: p[1], Text: p[2]})
			}
			if err := sc.Err(); err != nil {
				return nil, nil, err
			}
			return docs, corpus.Skipped{}, f.Finish()
		},
		Caption: registry.PathCaption})
	t.Cleanup(func() {
		delete(registry.Mechanisms, "reverse")
		delete(registry.Scorers, "first-word")
		delete(registry.Scorers, "first-word-topic")
		delete(registry.Scorers, "length-ratio")
		registry.CorpusFormats = formats
	})

	// The corpus of the run fixture, rewritten as TSV.
	jsonl, vecPath := fixtures.Corpus(t, 4, 2, 400)
	docs, _, err := corpus.ReadJSONL(jsonl, corpus.JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range docs {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", d.Author, d.Topic, d.Text)
	}
	dir := t.TempDir()
	fixtures.WriteText(t, filepath.Join(dir, "corpus.tsv"), b.String())
	src := fmt.Sprintf(`name = "extend"
[corpus]
format = "tsv"
path = "corpus.tsv"
[embeddings]
format = "text"
path = %q
vocabulary = "all"
[protocol]
known_words = 200
unknown_words = 100
topic_train_words = 100
[[sets]]
name = "6"
authors = 6
[[mechanisms]]
name = "none"
[[mechanisms]]
name = "reverse"
[mechanisms.params]
keep = 3
[[scorers]]
name = "first-word"
[[scorers]]
name = "first-word-topic"
[[scorers]]
name = "length-ratio"
`, vecPath)
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "extend.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := runconfig.ParseConfig(filepath.Join(dir, "bad.toml"), strings.Replace(src, "keep = 3", "keep = -1", 1))
	if err == nil {
		err = runconfig.CheckComponents(bad)
	}
	if err == nil || !strings.Contains(err.Error(), "bad.toml:21: mechanisms[1].params.keep: reverse: keep = -1") {
		t.Errorf("bad value of the new mechanism: %v", err)
	}
	out := filepath.Join(dir, "run")
	if err := runFixture(t, cfg, out, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	results := readFile(t, filepath.Join(out, "results.csv"))
	for _, want := range []string{"6,reverse,,0,first-word,accuracy,", "6,reverse,,0,first-word-topic,accuracy,", "6,reverse,,0,length-ratio,mean,1"} {
		if !strings.Contains(results, want) {
			t.Errorf("results.csv lacks %q", want)
		}
	}
	if table := readFile(t, filepath.Join(out, "table.md")); !strings.Contains(table, `Corpus: tsv corpus "corpus.tsv", 16 documents`) {
		t.Errorf("caption does not name the new corpus format:\n%s", table)
	}
}
