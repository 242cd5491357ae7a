package main

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"dptext/corpus"
	"dptext/datasets"
	"dptext/embeddings"
	"dptext/attribution"
	"dptext/experiments"
	"dptext/learn"
	"dptext/mechanisms"
	"dptext/rngs"
	"dptext/text"
)

// embeddingFlags are the flags of commands that load word vectors outside a config.
type embeddingFlags struct {
	path, format, vocabulary string
	topK                     int
}

func addEmbeddingFlags(fs *flag.FlagSet, defaultTopK int) *embeddingFlags {
	e := &embeddingFlags{}
	fs.StringVar(&e.path, "embeddings", "", "word vectors file (default: the GloVe-100d default data)")
	fs.StringVar(&e.format, "format", "auto", "format of --embeddings: auto, word2vec-bin, text, wink or cache")
	fs.StringVar(&e.vocabulary, "vocabulary", experiments.VocabularyWords, `"words" (single normalised words only) or "all"`)
	fs.IntVar(&e.topK, "top-k", defaultTopK, "keep the K most frequent words (0: all)")
	return e
}

func (e *embeddingFlags) load(ctx context.Context, log io.Writer) (*embeddings.Store, error) {
	if e.vocabulary != experiments.VocabularyWords && e.vocabulary != experiments.VocabularyAll {
		return nil, usagef("--vocabulary %q: want words or all", e.vocabulary)
	}
	if e.topK < 0 {
		return nil, usagef("--top-k %d: want 0 or more", e.topK)
	}
	dataDir, err := datasets.DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	cfg := experiments.EmbeddingsConfig{Path: e.path, Format: e.format, TopK: e.topK, Vocabulary: e.vocabulary}
	store, _, err := experiments.LoadEmbeddings(ctx, cfg, e.path, dataDir, log)
	return store, err
}

// paramFlag collects repeated --param key=value flags; values are TOML values (strings may
// be given without quotes).
type paramFlag map[string]any

func (p paramFlag) String() string { return fmt.Sprint(map[string]any(p)) }

func (p paramFlag) Set(s string) error {
	key, val, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(key) == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	key = strings.TrimSpace(key)
	var doc map[string]any
	if _, err := toml.Decode("v = "+val, &doc); err == nil {
		p[key] = doc["v"]
	} else {
		p[key] = strings.TrimSpace(val)
	}
	return nil
}

func cmdCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", stderr)
	emb := addEmbeddingFlags(fs, 100000)
	epsList := fs.String("epsilons", "5,7.5,10,12.5,15,20,25,30", "comma-separated ε grid")
	words := fs.Int("words", 2000, "vocabulary words sampled uniformly by rank")
	seed := fs.Uint64("seed", 1, "random seed")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	eps, err := parseFloats(*epsList)
	if err != nil {
		return usagef("--epsilons: %v", err)
	}
	for _, e := range eps {
		if err := experiments.Mechanisms["emd"].Epsilons.Check(e); err != nil {
			return usagef("--epsilons: emd: %v", err)
		}
	}
	store, err := emb.load(ctx, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "calibrating the emd mechanism on %d words × %d dimensions, %d sampled words per ε\n", store.Len(), store.Dim(), *words)
	rows, err := mechanisms.CalibrateEMD(store, eps, *words, rngs.New(*seed, "calibrate"), mechanisms.DefaultEMDOptions())
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	head := []string{"ε", "unchanged", "mean cos"}
	for _, b := range mechanisms.EMDRankBuckets {
		head = append(head, "rank "+b.Label)
	}
	head = append(head, "mean radius")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range rows {
		cells := []string{strconv.FormatFloat(r.Epsilon, 'g', -1, 64), fmt.Sprintf("%.3f", r.UnchangedShare), fmt.Sprintf("%.3f", r.MeanCosine)}
		for _, s := range r.RankShares {
			cells = append(cells, fmt.Sprintf("%.3f", s))
		}
		cells = append(cells, fmt.Sprintf("%.2f", r.MeanNoiseRadius))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "unchanged: share of sampled words decoded to themselves; rank k: share whose output is the input's k-th nearest neighbour (0 = itself).")
	fmt.Fprintln(stdout, "Choose a grid whose top ε leaves almost every word unchanged and whose bottom ε changes most of them.")
	return nil
}

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return nil, fmt.Errorf("%q is not a finite number > 0", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func cmdObfuscate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("obfuscate", stderr)
	emb := addEmbeddingFlags(fs, 100000)
	mech := fs.String("mechanism", "emd", "mechanism name (see dptext list)")
	eps := fs.Float64("epsilon", math.NaN(), "ε of the mechanism")
	seed := fs.Uint64("seed", 0, "random seed, for previews and tests only: output made with a known seed is not private (default: a fresh seed from the operating system's random source)")
	params := paramFlag{}
	fs.Var(params, "param", "mechanism parameter key=value (repeatable), as in a config's params table")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("want at most one FILE (default: standard input)")
	}
	releaseSeed, err := releaseSeed(fs, *seed, stderr)
	if err != nil {
		return err
	}
	if *mech == "emd" {
		if _, set := params["order"]; !set {
			params["order"] = mechanisms.OrderKeep // the words are written back in place
		}
	}
	mo, err := experiments.DecodeMechanism(*mech, *eps, params)
	if err != nil {
		return err
	}
	name := "standard input"
	in := io.Reader(os.Stdin)
	if len(pos) == 1 {
		f, err := os.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, pos[0]
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%s: not valid UTF-8 text", name)
	}
	if len(text.NormalizeText(string(data))) == 0 {
		return fmt.Errorf("%s: no words to privatise (empty, or only stopwords and punctuation)", name)
	}
	store, err := emb.load(ctx, stderr)
	if err != nil {
		return err
	}
	env := &experiments.Env{Embeddings: store, Workers: 2, RawTexts: []string{string(data)}, Context: ctx}
	if mo.Needs().TrainingCorpus {
		if env.Corpus, err = defaultTrainingCorpus(ctx, stderr); err != nil {
			return err
		}
	}
	m, err := mo.Build(env, *eps)
	if err != nil {
		return err
	}
	rng := rngs.New(releaseSeed, "obfuscate")
	var words []string
	var applyErr error
	out, err := text.RewriteWords(string(data), func(w []string) []string {
		words = w
		var p []string
		p, applyErr = mechanisms.Privatize(m, rng, w)
		return p
	})
	if applyErr != nil {
		return applyErr
	}
	if err != nil {
		// Not order-preserving (e.g. SynTF's sampled bag, or dropped words): print the words.
		p, err := mechanisms.Privatize(m, rngs.New(releaseSeed, "obfuscate"), words)
		if err != nil {
			return err
		}
		out = strings.Join(p, " ") + "\n"
		fmt.Fprintf(stderr, "note: %s does not keep word positions; printing its output words only\n", *mech)
	}
	fmt.Fprint(stdout, out)
	if pt, ok := m.(mechanisms.PassThrougher); ok {
		if leaked := pt.PassedThrough(words); len(leaked) > 0 {
			fmt.Fprintf(stderr, "warning: %d word(s) passed through UNPROTECTED (out of vocabulary, oov = \"keep\"): %s; "+
				"no finite guarantee holds against a document without them (use --param oov=drop or nearest-known)\n",
				len(leaked), strings.Join(leaked, ", "))
		}
	}
	g := m.Guarantee(words)
	fmt.Fprintf(stderr, "privatised %d words (stopwords and punctuation kept as in the input); guarantee: %s\n", len(words), describeGuarantee(g))
	return nil
}

// releaseSeed returns the seed of a release command: --seed when given (with a warning that
// its output is not private, since anyone who knows the seed can regenerate the noise), else
// a fresh seed from crypto/rand.
func releaseSeed(fs *flag.FlagSet, flagSeed uint64, stderr io.Writer) (uint64, error) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "seed" })
	if given {
		fmt.Fprintln(stderr, "warning: --seed given: anyone who knows the seed can regenerate the noise, so this output is NOT private; use it for previews and tests only")
		return flagSeed, nil
	}
	var b [8]byte
	if _, err := cryptorand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("drawing a release seed from the operating system: %w", err)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

func describeGuarantee(g mechanisms.Guarantee) string {
	switch g.Kind {
	case mechanisms.KindMetric:
		if g.Metric == mechanisms.MetricPositional {
			return fmt.Sprintf("positional (words released in place): multiplier at most e^{ε·Σᵢ d(xᵢ, x′ᵢ)} = e^{%.4g·d} against any document of the same length whose mean per-position word distance is d", g.Epsilon)
		}
		return fmt.Sprintf("ε·N = %.4g per unit of %s (multiplier e^{%.4g·d} between two documents at %s distance d)", g.Epsilon, g.Metric, g.Epsilon, g.Metric)
	case mechanisms.KindPure:
		s := fmt.Sprintf("%.4g-differential privacy between any two documents of this length", g.Epsilon)
		keys := make([]string, 0, len(g.Bounds))
		for k := range g.Bounds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s += fmt.Sprintf("; %s = %.4g", k, g.Bounds[k])
		}
		return s
	}
	return "none (no formal privacy)"
}

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "decode" {
		return usagef("want `bench decode`")
	}
	fs := newFlags("bench", stderr)
	topK := fs.Int("top-k", 100000, "vocabulary size")
	queries := fs.Int("queries", 2000, "noisy vectors to decode")
	workers := fs.Int("workers", 0, "goroutines (0: all cores)")
	real := fs.Bool("glove", false, "use the default GloVe vectors instead of a random 100-d vocabulary")
	rounds := fs.Int("rounds", 3, "rounds; the medians are printed")
	reference := fs.String("reference", "", "also run this reference script each round, back to back (e.g. bench/decode_reference.py)")
	python := fs.String("python", "/usr/bin/python3", "interpreter of --reference (Debian's, which has python3-numpy)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if *rounds < 1 {
		return usagef("--rounds %d: want at least 1", *rounds)
	}
	var store *embeddings.Store
	if *real {
		e := &embeddingFlags{format: "auto", vocabulary: experiments.VocabularyAll, topK: *topK}
		if store, err = e.load(ctx, stderr); err != nil {
			return err
		}
	}
	var ours, theirs []float64
	for round := 0; round < *rounds; round++ {
		wps, err := mechanisms.BenchmarkDecode(store, *topK, *queries, *workers, 1)
		if err != nil {
			return err
		}
		ours = append(ours, wps)
		if *reference != "" {
			ref, err := runReference(ctx, *python, *reference, *topK, *queries)
			if err != nil {
				return err
			}
			theirs = append(theirs, ref)
		}
	}
	fmt.Fprintf(stdout, "bench decode top_k=%d queries=%d workers=%d rounds=%d words_per_second=%.0f\n", *topK, *queries, *workers, *rounds, median(ours))
	if len(theirs) > 0 {
		fmt.Fprintf(stdout, "reference %s top_k=%d queries=%d rounds=%d words_per_second=%.0f\n", *reference, *topK, *queries, *rounds, median(theirs))
		fmt.Fprintf(stdout, "ratio dptext/reference (medians of rounds run back to back) = %.2f\n", median(ours)/median(theirs))
	}
	return nil
}

// runReference runs the numpy reference decoder and returns its median words per second.
func runReference(ctx context.Context, python, script string, topK, queries int) (float64, error) {
	out, err := exec.CommandContext(ctx, python, script, "--top-k", strconv.Itoa(topK), "--queries", strconv.Itoa(queries)).Output()
	if err != nil {
		return 0, fmt.Errorf("reference %s %s: %v (Debian: apt-get install python3-numpy libopenblas0-pthread)", python, script, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	last := lines[len(lines)-1]
	i := strings.LastIndex(last, "words_per_second=")
	if i < 0 {
		return 0, fmt.Errorf("reference %s printed no words_per_second: %q", script, last)
	}
	return strconv.ParseFloat(strings.TrimSpace(last[i+len("words_per_second="):]), 64)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func cmdAttribute(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("attribute", stderr)
	emb := addEmbeddingFlags(fs, 100000)
	attacker := fs.String("attacker", "koppel11", "attacker name (see dptext list)")
	input := fs.String("input", "", "PAN collection, problem folder, or older meta-file.json folder")
	output := fs.String("output", "", "folder for the answers")
	mech := fs.String("mechanism", "", "privatise the unknown texts with this mechanism first")
	eps := fs.Float64("epsilon", math.NaN(), "ε of --mechanism")
	seed := fs.Uint64("seed", 1, "random seed")
	language := fs.String("language", "", "answer only the problems in this language (e.g. en)")
	reject := fs.String("reject", "none", "leave texts unattributed (<UNK>): none | margin (top two scores closer than the threshold; PAN 2019 baseline) | score (top score below it)")
	threshold := fs.Float64("reject-threshold", 0.1, "threshold of --reject on the attacker's scores")
	params := paramFlag{}
	fs.Var(params, "param", "attacker parameter key=value (repeatable)")
	mparams := paramFlag{}
	fs.Var(mparams, "mechanism-param", "mechanism parameter key=value (repeatable)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *input == "" || *output == "" {
		return usagef("--input and --output are required; no other arguments")
	}
	rule := attribution.RejectRule{Rule: *reject, Threshold: *threshold}
	if err := rule.Validate(); err != nil {
		return usagef("--reject: %v", err)
	}
	var env experiments.Env
	env.Workers = 2
	ao, err := experiments.DecodeClassifier(*attacker, params)
	if err != nil {
		return err
	}
	needs := ao.Needs()
	var mo *experiments.MechanismOptions
	if *mech != "" {
		if mo, err = experiments.DecodeMechanism(*mech, *eps, mparams); err != nil {
			return err
		}
		needs = needs.Or(mo.Needs())
	}
	if needs.TrainingCorpus {
		if env.Corpus, err = defaultTrainingCorpus(ctx, stderr); err != nil {
			return err
		}
	}
	if needs.Vectors {
		if env.Embeddings, err = emb.load(ctx, stderr); err != nil {
			return err
		}
	}
	opts := attribution.AttributeOptions{Input: *input, Output: *output, Seed: *seed, Language: *language, Reject: rule, Progress: stderr,
		NewAttacker: func() (learn.Classifier, error) { return ao.Build(&env) }}
	if mo != nil {
		if opts.Mechanism, err = mo.Build(&env, *eps); err != nil {
			return err
		}
	}
	res, err := attribution.Attribute(opts)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, attribution.FormatResults(res))
	fmt.Fprintf(stdout, "answers written to %s\n", *output)
	return nil
}

func cmdPrivacy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("privacy", stderr)
	emb := addEmbeddingFlags(fs, 30000)
	mech := fs.String("mechanism", "syntf", "mechanism (syntf)")
	epsList := fs.String("epsilons", "47.5", "comma-separated ε grid")
	n := fs.Int("n", 150, "output length n of SynTF")
	params := paramFlag{}
	fs.Var(params, "param", "mechanism parameter key=value (repeatable), e.g. s=0.3")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	if *mech != "syntf" {
		return usagef("--mechanism %q: only syntf has a vocabulary-wide bound to compute (emd: ε·N·EMD, expmech: ε·l)", *mech)
	}
	eps, err := parseFloats(*epsList)
	if err != nil {
		return usagef("--epsilons: %v", err)
	}
	store, err := emb.load(ctx, stderr)
	if err != nil {
		return err
	}
	opts := mechanisms.DefaultSynTFOptions()
	p := experiments.Params{File: "command line", Table: "params", Component: "syntf", Values: params}
	if err := p.Decode(&opts); err != nil {
		return err
	}
	opts.EllContext = ctx
	fmt.Fprintf(stderr, "computing ℓ over %d words × %d dimensions (|V|² ratings in blocks)\n", store.Len(), store.Dim())
	return mechanisms.PrintSynTFPrivacy(stdout, store, eps, *n, opts, 0)
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
