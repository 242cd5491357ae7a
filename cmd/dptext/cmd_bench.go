package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"dptext/embeddings"
	"dptext/experiments/bench"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/datasets"
	"dptext/internal/filehash"
	"dptext/internal/resources"
	"dptext/internal/rngs"
)

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "mechanisms" {
		return cmdBenchMechanisms(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "decode" {
		return usagef("want `bench decode` or `bench mechanisms`")
	}
	fs := newFlags(ctx, "bench", stderr)
	topK := fs.Int("top-k", 100000, "keep the K most frequent words (0: all); with --synthetic only when given")
	queries := fs.Int("queries", 2000, "noisy vectors to decode per round")
	epsilon := fs.Float64("epsilon", 10, "ε of the EMD noise added to the query words")
	workers := fs.Int("workers", 0, "goroutines (0: all cores)")
	real := fs.Bool("glove", false, "use the default GloVe vectors (real vocabulary) instead of a random one")
	synthetic := fs.String("synthetic", "100000x100", "size VxN of the random vocabulary (normal, σ = 0.4) when --glove is not given")
	rounds := fs.Int("rounds", 3, "rounds; medians are printed")
	reference := fs.String("reference", "", "also run this reference script each round, back to back (e.g. experiments/bench/decode_reference.py)")
	python := fs.String("python", "/usr/bin/python3", "interpreter of --reference (Debian's, which has python3-numpy)")
	ghz := fs.Float64("ghz", 0, "core clock for the roofline, taken as 32 flop/cycle/core (0: measure the FMA peak instead)")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if *rounds < 1 || *rounds > maxBenchRounds {
		return usagef("--rounds %d: want 1 to %d", *rounds, maxBenchRounds)
	}
	if *queries < 1 || *queries > maxBenchQueries {
		return usagef("--queries %d: want 1 to %d", *queries, maxBenchQueries)
	}
	if !(*epsilon > 0) || math.IsInf(*epsilon, 1) {
		return usagef("--epsilon %g: want a finite number > 0", *epsilon)
	}
	if *workers < 0 || *workers > runconfig.MaxWorkers {
		return usagef("--workers %d: want 0 (all cores) to %d", *workers, runconfig.MaxWorkers)
	}
	if !(*ghz >= 0 && *ghz <= maxBenchGHz) {
		return usagef("--ghz %g: want 0 (measure) or a clock in GHz up to %g", *ghz, float64(maxBenchGHz))
	}
	if *topK < 0 {
		return usagef("--top-k %d: want 0 (all) or more", *topK)
	}
	// The EMD noise of an ε outside the mechanism's range is not what a run would add
	// (--epsilon 1e308 was benchmarked).
	if err := registry.Mechanisms["emd"].Epsilons.Check(*epsilon); err != nil {
		return usagef("--epsilon: emd: %v", err)
	}
	if *reference != "" {
		// The interpreter would wait for ever on a named pipe (--reference FIFO hung after the
		// rounds) and read a device without end.
		if err := filehash.CheckInput(*reference, maxReferenceBytes, "a reference script"); err != nil {
			return usagef("--reference: %v", err)
		}
		if info, err := os.Stat(*reference); err == nil && info.IsDir() {
			return usagef("--reference %s is a folder: want a Python script", *reference)
		}
	}
	rng := rngs.New(1, "bench/decode")
	var store *embeddings.Store
	if *real {
		e := &embeddingFlags{format: "auto", vocabulary: runconfig.VocabularyAll, topK: *topK}
		if store, err = e.load(ctx, stderr); err != nil {
			return err
		}
	} else {
		v, n, err := parseSize(*synthetic)
		if err != nil {
			return usagef("--synthetic %q: %v", *synthetic, err)
		}
		topKSet := false
		fs.Visit(func(f *flag.Flag) { topKSet = topKSet || f.Name == "top-k" })
		if topKSet && *topK > 0 { // an explicit --top-k keeps the K first rows
			v = min(v, *topK)
		}
		// The vectors (4 bytes a coordinate) and, per word, its name and index entry (about 80
		// bytes); float64 so that absurd sizes do not overflow.
		need := 4*float64(v)*float64(n) + 80*float64(v)
		if err := resources.Fits(fmt.Sprintf("--synthetic %s", *synthetic), need, "4 bytes × V × N + 80 bytes × V"); err != nil {
			return usagef("%v", err)
		}
		if store, err = bench.NormalVocabulary(rng, v, n, 0.4); err != nil {
			return err
		}
	}
	return bench.Decode(ctx, stdout, store, rng, bench.DecodeOptions{Queries: *queries, Rounds: *rounds, Epsilon: *epsilon, Workers: *workers,
		GHz: *ghz, Reference: *reference, Python: *python, Vocabulary: vocabularyName(*real)})
}

// maxReferenceBytes bounds bench decode's --reference script (the shipped one is 5 KB).
const maxReferenceBytes = 1 << 20

// Limits of bench decode's flags: far above a useful benchmark, they turn a typo into an error.
const (
	maxBenchRounds  = 1000
	maxBenchQueries = 1_000_000
	maxBenchGHz     = 100 // a core clock in GHz
)

func vocabularyName(real bool) string {
	if real {
		return "GloVe, most frequent words"
	}
	return "random normal"
}

// parseSize parses "VxN" (vocabulary size × dimension).
func parseSize(s string) (v, n int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		v, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || v < 1 || n < 1 {
		return 0, 0, fmt.Errorf("want VxN with positive integers, e.g. 1000000x300")
	}
	return v, n, nil
}

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// benchGumbelEpsilon is bench mechanisms' default ε of the truncated Gumbel mechanism, whose
// range starts far above the other mechanisms' (configs/mechanisms.toml runs it from 60 up).
const benchGumbelEpsilon = 1000.0

// epsilonOverrides is bench mechanisms' repeatable --epsilon-for NAME=E: the ε of a mechanism
// that is not --epsilon.
type epsilonOverrides map[string]float64

func (o epsilonOverrides) String() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(o)) {
		parts = append(parts, fmt.Sprintf("%s=%g", name, o[name]))
	}
	return strings.Join(parts, ",")
}

func (o epsilonOverrides) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	eps, err := strconv.ParseFloat(value, 64)
	if !ok || name == "" || err != nil || !(eps > 0) || math.IsInf(eps, 1) {
		return fmt.Errorf("%q: want NAME=E, a mechanism's name and a finite ε > 0, e.g. truncated-gumbel=1000", v)
	}
	o[name] = eps
	return nil
}

// Limits of bench mechanisms' flags.
const (
	maxBenchDocuments = 10_000
	maxBenchWords     = 100_000
)

func cmdBenchMechanisms(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "bench", stderr)
	epsilon := fs.Float64("epsilon", 10, "ε every mechanism is built at unless --epsilon-for names it (a mechanism outside whose range its ε is, is listed as not measured)")
	epsilonFor := epsilonOverrides{"truncated-gumbel": benchGumbelEpsilon}
	fs.Var(epsilonFor, "epsilon-for", fmt.Sprintf("NAME=E: build mechanism NAME at ε = E instead (repeatable; default truncated-gumbel=%g, as its scale needs ε above (2(1+ln|V|)+3)/Δ_min, about 41 on the top 20,000 GloVe words)", benchGumbelEpsilon))
	var names stringList
	fs.Var(&names, "mechanism", "a registered mechanism to measure (repeatable; default: all)")
	topK := fs.Int("top-k", 20000, "keep the K most frequent words of the default GloVe vectors (0: all); the configs use 20000")
	documents := fs.Int("documents", 420, "documents per round, each privatised with its own generator in one batch, as the runner does (default: a cell of configs/mechanisms.toml, 30 authors × 14 snippets)")
	words := fs.Int("words", 209, "Zipf-drawn words per document (default: the snippets' common length in configs/mechanisms.toml)")
	referenceWords := fs.Int("reference-words", 300, "words of a round the per-token reference releases")
	rounds := fs.Int("rounds", 3, "rounds; medians are printed")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if !(*epsilon > 0) || math.IsInf(*epsilon, 1) {
		return usagef("--epsilon %g: want a finite number > 0", *epsilon)
	}
	for _, name := range slices.Sorted(maps.Keys(epsilonFor)) {
		if _, ok := registry.Mechanisms[name]; !ok {
			return usagef("--epsilon-for %s: unknown mechanism; valid: %s", name, strings.Join(registry.MechanismNames(), ", "))
		}
	}
	if *rounds < 1 || *rounds > maxBenchRounds {
		return usagef("--rounds %d: want 1 to %d", *rounds, maxBenchRounds)
	}
	if *documents < 1 || *documents > maxBenchDocuments {
		return usagef("--documents %d: want 1 to %d", *documents, maxBenchDocuments)
	}
	if *words < 1 || *words > maxBenchWords {
		return usagef("--words %d: want 1 to %d", *words, maxBenchWords)
	}
	if *referenceWords < 1 || *referenceWords > *documents**words {
		return usagef("--reference-words %d: want 1 to the words of a round (%d)", *referenceWords, *documents**words)
	}
	if *topK < 0 {
		return usagef("--top-k %d: want 0 (all) or more", *topK)
	}
	if len(names) == 0 {
		names = registry.MechanismNames()
	}
	for _, n := range names {
		if _, ok := registry.Mechanisms[n]; !ok {
			return usagef("--mechanism %q: unknown; valid: %s", n, strings.Join(registry.MechanismNames(), ", "))
		}
	}
	e := &embeddingFlags{format: "auto", vocabulary: runconfig.VocabularyAll, topK: *topK}
	store, err := e.load(ctx, stderr)
	if err != nil {
		return err
	}
	dataDir, err := datasets.DefaultCacheDir()
	if err != nil {
		return err
	}
	// The runner's cache of derived data (SynTF's ℓ, computed once per vocabulary and ε).
	env := &registry.Env{Embeddings: store, Workers: 1, Context: ctx, CacheDir: filepath.Join(dataDir, "derived")}
	return bench.Mechanisms(ctx, stdout, env, bench.MechanismsOptions{Epsilon: *epsilon, EpsilonFor: epsilonFor, Names: names, Documents: *documents, Words: *words,
		ReferenceWords: *referenceWords, Rounds: *rounds, Vocabulary: vocabularyName(true)})
}
