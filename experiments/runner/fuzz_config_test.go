package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"dptext/experiments/protocol"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/configfile"
	"dptext/internal/fixtures"
	"dptext/mechanisms/distinguish"
)

// grammarTable is one table of the config grammar FuzzConfigGrammar writes: its header ("" for
// the top level) and its keys with valid values, in order.
type grammarTable struct {
	header string
	keys   [][2]string
}

// configGrammar is every table of a config with every key a run over the generated corpus
// (fixtures.Corpus) reads, each at a valid value: the grammar the fuzz target mutates.
func configGrammar(corpusPath, vecPath string) []grammarTable {
	return []grammarTable{
		{"", [][2]string{{"name", `"fuzz"`}, {"seed", "3"}, {"repeats", "1"}, {"description", `"d"`}}},
		{"[corpus]", [][2]string{{"format", `"jsonl"`}, {"path", fmt.Sprintf("%q", corpusPath)}}},
		{"[embeddings]", [][2]string{{"format", `"text"`}, {"path", fmt.Sprintf("%q", vecPath)}, {"vocabulary", `"all"`}, {"top_k", "0"}}},
		{"[protocol]", [][2]string{{"kind", `"authorship"`}, {"known_words", "200"}, {"unknown_words", "100"}, {"stories_per_author", "1"},
			{"snippets_per_author", "0"}, {"topic_train_words", "100"}, {"topic_train_max", "0"}, {"validation_share", "0.2"},
			{"topics", "2"}, {"resample", `"none"`}}},
		{"[[sets]]", [][2]string{{"name", `"s"`}, {"authors", "4"}}},
		{"[[mechanisms]]", [][2]string{{"name", `"none"`}}},
		{"[[mechanisms]]", [][2]string{{"name", `"emd"`}, {"label", `"emd"`}, {"epsilons", "[30, 10]"}}},
		{"[mechanisms.params]", [][2]string{{"top_k", "0"}, {"oov", `"keep"`}, {"workers", "1"}, {"order", `"bag"`}}},
		{"[[scorers]]", [][2]string{{"name", `"sr-nn"`}}},
		{"[[scorers]]", [][2]string{{"name", `"cosine"`}, {"label", `"cos"`}}},
		{"[[scorers]]", [][2]string{{"name", `"chrf"`}}},
		{"[audit]", [][2]string{{"samples", "20"}, {"alpha", "0.05"}, {"pairs", "2"}}},
		{"[distinguish]", [][2]string{{"pairs", "4"}, {"words", "50"}, {"releases", "4"}, {"distances", "[1, 5]"}, {"alpha", "0.05"},
			{"replicates", "200"}, {"distinguishers", `["positional", "overlap"]`}, {"verdict_levels", "[1, 2]"}, {"verdict_distance", "1"}}},
		{"[verdict]", [][2]string{{"attack", `"sr-nn"`}, {"attack_measure", `"accuracy"`}, {"above_chance", "[0.05, 0.1]"},
			{"utilities", `["cos", "chrf"]`}, {"baseline", `"none"`}, {"replicates", "200"}, {"confidence", "0.95"}, {"alpha", "0.05"},
			{"halves", "false"}, {"claimed_eps", "{ pure = [5] }"}, {"audited_eps", "{ pure = [5] }"}, {"search", "false"}, {"search_rounds", "4"}}},
		{"[report]", [][2]string{{"metric", `"correct"`}, {"interval", `"t"`}, {"level", "0.95"}, {"plot_metrics", `["accuracy"]`},
			{"privacy_metrics", `["epsilon_doc"]`}}},
	}
}

// fuzzValues are the mutations a key's value is drawn from, besides the fuzzer's own text:
// zeros, signs, the edges of float64, repeats and values of the wrong type.
var fuzzValues = []string{"", "0", "-1", "1", "2", "3", "5", "0.5", "0.9", "1.5", "36", "37", "710", "1e-300", "1e308", "inf", "-inf", "nan",
	"9999999999999", "[]", "[1, 1]", "[0.1, 0.1]", "[0]", "[710]", "[0.9]", `["cos", "cos"]`, `["overlap", "overlap"]`, "true", "false", `"x"`, `""`,
	`"none"`, "{ pure = [5, 5] }", "{ x = [1] }"}

// fuzzConfig writes the grammar with the keys of muts mutated: key index k (over every key of
// every table, in order) set to the value text muts[k] ("" removes the key).
func fuzzConfig(grammar []grammarTable, muts map[int]string) string {
	var b strings.Builder
	i := 0
	for _, t := range grammar {
		if t.header != "" {
			fmt.Fprintf(&b, "\n%s\n", t.header)
		}
		for _, kv := range t.keys {
			v, mutated := muts[i]
			if !mutated {
				v = kv[1]
			}
			if v != "" {
				fmt.Fprintf(&b, "%s = %s\n", kv[0], v)
			}
			i++
		}
	}
	return b.String()
}

// FuzzConfigGrammar generates configs from the grammar of every table (configGrammar: every
// key at a valid value) with up to three keys mutated (to one of fuzzValues, or to the
// fuzzer's text), and asserts the promise of `dptext check`: a config it refuses gets an error
// that names a key and a line; a config it accepts passes every check the run makes about the
// config on the way to and in its cells — the draws of its sets (protocol.Split), the
// [distinguish] pairs of every draw (distinguish.Pairs, the run's own call), the verdict's
// halves (4 authors) and levels (finite, at most 1 as an accuracy) — and the first step of
// every cell, each mechanism built at each ε on the run's vectors (when they load: check does
// not read vectors, and the run refuses an unreadable file before any cell). Each execution parses,
// builds the components against a tiny vocabulary, draws the sets of a 6-author corpus and
// loads its small vector file: about a millisecond, so that CI's 20 s make thousands of
// executions; a whole run per input (seconds: scorers trained, releases scored) would make a
// handful, and the fuzzer would explore nothing.
func FuzzConfigGrammar(f *testing.F) {
	corpusPath, vecPath := fixtures.Corpus(f, 3, 2, 400)
	grammar := configGrammar(corpusPath, vecPath)
	n := 0
	for _, t := range grammar {
		n += len(t.keys)
	}
	f.Add(uint16(0), uint16(0), uint16(0), uint16(0), "")
	rng := rand.New(rand.NewPCG(47, 1))
	for range 40 {
		f.Add(uint16(rng.IntN(n)), uint16(rng.IntN(len(fuzzValues))), uint16(rng.IntN(n)), uint16(rng.IntN(len(fuzzValues))), "")
	}
	dir := f.TempDir()
	// The grammar itself is a config check accepts, so that one mutation explores the
	// neighbourhood of a valid config.
	valid, err := runconfig.ParseConfig(filepath.Join(dir, "fuzz.toml"), fuzzConfig(grammar, nil))
	if err == nil {
		err = runconfig.CheckComponents(valid)
	}
	if err == nil {
		err = CheckData(context.Background(), valid, dir, func(string, ...any) {})
	}
	if err != nil {
		f.Fatalf("the unmutated grammar is refused: %v", err)
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 uint16, text string) {
		// The second mutation applies to half of v2's values, so that single mutations of the
		// valid grammar are explored as often as pairs.
		muts := map[int]string{int(k1) % n: fuzzValues[int(v1)%len(fuzzValues)]}
		if i := int(v2) % (2 * len(fuzzValues)); i < len(fuzzValues) {
			muts[int(k2)%n] = fuzzValues[i]
		}
		if text != "" && !strings.ContainsAny(text, "\n\r") {
			muts[(int(k1)+int(k2))%n] = text
		}
		src := fuzzConfig(grammar, muts)
		path := filepath.Join(dir, "fuzz.toml")
		refused := func(stage string, err error) {
			var ce *configfile.Error
			// A key left out has no line; its table's header is named when it has one.
			missingTop := errors.As(err, &ce) && strings.HasPrefix(ce.Msg, "missing") && !strings.Contains(ce.Key, ".")
			if !errors.As(err, &ce) || (ce.Line < 1 && !missingTop) || ce.File != path {
				t.Fatalf("%s refused the config without a file and line: %v\n%s", stage, err, src)
			}
			// A text the TOML parser cannot read names its line, and no key when it has none.
			if _, syntax := toml.Decode(src, &map[string]any{}); ce.Key == "" && syntax == nil {
				t.Fatalf("%s refused the config without naming a key: %v\n%s", stage, err, src)
			}
		}
		cfg, err := runconfig.ParseConfig(path, src)
		if err != nil {
			refused("validation", err)
			return
		}
		if err := runconfig.CheckComponents(cfg); err != nil {
			refused("CheckComponents", err)
			return
		}
		if format, _ := registry.LookupCorpusFormat(cfg.Corpus.Format); format.Dataset != "" || cfg.Embeddings.Path == "" {
			return // the default data, which an execution must not fetch
		}
		sets, err := drawConfigSets(context.Background(), cfg, dir, func(string, ...any) {})
		if err == nil {
			err = cfg.CheckDraws(drawFacts(sets))
		}
		if err != nil {
			refused("CheckData", err)
			return
		}
		assertRunAccepts(t, cfg, sets, src)
		// The first step of every cell: the mechanisms built on the run's vectors and the set's
		// training corpus.
		// check does not read the vectors (GloVe takes seconds to load): a file the format cannot
		// read is refused by the run as it loads its inputs, before any cell, not here.
		store, _, err := LoadEmbeddings(context.Background(), cfg.Embeddings, cfg.Resolve(cfg.Embeddings.Path), dir, io.Discard)
		if err != nil {
			return
		}
		for i, m := range cfg.Mechanisms {
			o, err := cfg.MechanismOptions(i)
			if err != nil {
				t.Fatal(err)
			}
			env := &registry.Env{Embeddings: store, Workers: 1, Corpus: sets[0].TopicTrain, ConfigDir: filepath.Dir(path), CacheDir: dir}
			for _, e := range m.Grid() {
				if _, err := o.Build(env, e.Value()); err != nil {
					t.Fatalf("check accepted mechanism %s at ε = %s, which the run cannot build: %v\n%s", m.ID(), e, err, src)
				}
			}
		}
	})
}

// assertRunAccepts makes the checks the run makes about the config on a config check accepted.
func assertRunAccepts(t *testing.T, cfg *runconfig.Config, sets []*protocol.SetData, src string) {
	t.Helper()
	if d := cfg.Distinguish; d != nil {
		if err := d.Options().Check(); err != nil {
			t.Fatalf("check accepted [distinguish] options the game refuses: %v\n%s", err, src)
		}
		for _, s := range sets {
			for _, draw := range s.AllDraws() {
				pairs, err := distinguish.Pairs(draw.Eval, draw.EvalAuthors, d.Pairs, d.Words, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					t.Fatalf("check accepted what the run's distinguish.Pairs refuses: %v\n%s", err, src)
				}
				if len(d.VerdictLevels) > 0 {
					x := map[int]bool{}
					for _, p := range pairs {
						x[p.Cluster] = true
					}
					if authors := slices.Compact(slices.Sorted(slices.Values(draw.EvalAuthors))); len(x) < len(authors) {
						t.Fatalf("check accepted pairs = %d, leaving %d of the %d authors without a pair (verdict_levels)\n%s", d.Pairs, len(authors)-len(x), len(authors), src)
					}
				}
			}
		}
		for _, l := range d.VerdictLevels {
			if a := runconfig.DistinguishLevelAccuracy(l); math.IsNaN(a) || a >= 1 || a <= 0.5 {
				t.Fatalf("check accepted verdict level %v of accuracy %v\n%s", l, a, src)
			}
		}
	}
	if v := cfg.Verdict; v != nil {
		for _, s := range sets {
			authors := map[string]bool{}
			for _, draw := range s.AllDraws() {
				for _, a := range draw.EvalAuthors {
					authors[a] = true
				}
			}
			if v.Halves && len(authors) < 4 {
				t.Fatalf("check accepted halves with %d authors\n%s", len(authors), src)
			}
			for _, x := range v.AboveChance {
				if l := v.AttackChance(len(s.Authors)) + x; !(l <= 1) {
					t.Fatalf("check accepted the attack level %v\n%s", l, src)
				}
			}
		}
		if v.Replicates < 1 || !(v.Confidence > 0 && v.Confidence < 1) || !(v.Alpha > 0 && v.Alpha < 1) || (*v.Search && v.SearchRounds < 1) {
			t.Fatalf("check accepted a verdict the run cannot make: %+v\n%s", v, src)
		}
	}
}
