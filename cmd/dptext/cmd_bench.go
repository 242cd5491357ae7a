package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"dptext/embeddings"
	"dptext/experiments"
	"dptext/mechanisms"
	"dptext/nearest"
	"dptext/resources"
	"dptext/rngs"
	"dptext/stats"
)

// flopsPerCycle is the float32 peak of one AVX2 core with two FMA units: 2 units × 8 lanes ×
// 2 operations (used with --ghz).
const flopsPerCycle = 32

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "decode" {
		return usagef("want `bench decode`")
	}
	fs := newFlags("bench", stderr)
	topK := fs.Int("top-k", 100000, "keep the K most frequent words (0: all); with --synthetic only when given")
	queries := fs.Int("queries", 2000, "noisy vectors to decode per round")
	epsilon := fs.Float64("epsilon", 10, "ε of the EMD noise added to the query words")
	workers := fs.Int("workers", 0, "goroutines (0: all cores)")
	real := fs.Bool("glove", false, "use the default GloVe vectors (real vocabulary) instead of a random one")
	synthetic := fs.String("synthetic", "100000x100", "size VxN of the random vocabulary (normal, σ = 0.4) when --glove is not given")
	rounds := fs.Int("rounds", 3, "rounds; medians are printed")
	reference := fs.String("reference", "", "also run this reference script each round, back to back (e.g. bench/decode_reference.py)")
	python := fs.String("python", "/usr/bin/python3", "interpreter of --reference (Debian's, which has python3-numpy)")
	ghz := fs.Float64("ghz", 0, "core clock for the roofline, taken as 32 flop/cycle/core (0: measure the FMA peak instead)")
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
	if *queries < 1 {
		return usagef("--queries %d: want at least 1", *queries)
	}
	if !(*epsilon > 0) || math.IsInf(*epsilon, 1) {
		return usagef("--epsilon %g: want a finite number > 0", *epsilon)
	}
	if *workers < 0 {
		return usagef("--workers %d: want 0 (all cores) or more", *workers)
	}
	rng := rngs.New(1, "bench/decode")
	var store *embeddings.Store
	if *real {
		e := &embeddingFlags{format: "auto", vocabulary: experiments.VocabularyAll, topK: *topK}
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
		if store, err = normalVocabulary(rng, v, n, 0.4); err != nil {
			return err
		}
	}
	vocab, dim := store.Len(), store.Dim()
	rows := nearest.ZipfRows(rng, vocab, *queries)
	z := mechanisms.EMDQueries(rng, store, rows, *epsilon)

	cores := *workers
	if cores == 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	if *ghz < 0 {
		return usagef("--ghz %g: want 0 (measure) or a clock in GHz", *ghz)
	}
	// roofline returns the words/s of a float32 scan at the cores' float32 peak (0 if unknown):
	// measured just before each round, since the machine may be shared.
	roofline := func() float64 {
		peak := float64(cores) * flopsPerCycle * *ghz * 1e9
		if *ghz == 0 {
			peak = nearest.MeasureFMAPeak(cores, 200*time.Millisecond)
		}
		return peak / (2 * float64(vocab) * float64(dim))
	}
	fmt.Fprintf(stdout, "bench decode vocabulary=%dx%d (%s) queries=%d epsilon=%g workers=%d rounds=%d; queries are EMD-noisy vectors of words drawn by Zipf's law over frequency rank\n",
		vocab, dim, vocabularyName(*real), *queries, *epsilon, cores, *rounds)
	if *ghz > 0 {
		fmt.Fprintf(stdout, "roofline: %d cores × %d flop/cycle × %g GHz / (2·%d·%d flop per word)\n", cores, flopsPerCycle, *ghz, vocab, dim)
	} else {
		fmt.Fprintf(stdout, "roofline: measured float32 FMA peak of %d cores (before each round) / (2·%d·%d flop per word)\n", cores, vocab, dim)
	}

	methods := []nearest.Method{nearest.Float32, nearest.Int8}
	decoders := make([]*nearest.Decoder, len(methods))
	for i, m := range methods {
		if decoders[i], err = nearest.New(store, nearest.Options{Workers: *workers, Method: m}); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "kernels: float32 %s, int8 %s (runtime CPU check)\n", decoders[0].Kernel(), decoders[1].Kernel())
	var vectorsFile string
	if *reference != "" {
		if vectorsFile, err = writeRawVectors(store); err != nil {
			return err
		}
		defer os.Remove(vectorsFile)
	}
	rates := make([][]float64, len(methods))
	rechecked := make([][]float64, len(methods))
	var theirs, roofs []float64
	for round := range *rounds {
		roof := roofline()
		roofs = append(roofs, roof)
		fmt.Fprintf(stdout, "round %d roofline words_per_second=%.0f\n", round, roof)
		var first []int
		for i, dec := range decoders {
			wps, perQuery, got, err := nearest.Throughput(dec, z, 400)
			if err != nil {
				return err
			}
			if first == nil {
				first = got
			} else if !slices.Equal(first, got) {
				return fmt.Errorf("bench decode: methods %s and %s decoded the same queries differently", methods[0], methods[i])
			}
			rates[i] = append(rates[i], wps)
			rechecked[i] = append(rechecked[i], perQuery/float64(vocab))
			fmt.Fprintf(stdout, "round %d %-8s words_per_second=%.0f rechecked_share=%.5f\n", round, methods[i], wps, perQuery/float64(vocab))
		}
		if *reference != "" {
			ref, err := runReference(ctx, *python, *reference, vectorsFile, vocab, dim, *queries, *epsilon)
			if err != nil {
				return err
			}
			theirs = append(theirs, ref)
			fmt.Fprintf(stdout, "round %d %-8s words_per_second=%.0f\n", round, "numpy", ref)
		}
	}
	for i, m := range methods {
		fmt.Fprintf(stdout, "median %-8s words_per_second=%.0f rechecked_share=%.5f", m, stats.Median(rates[i]), stats.Median(rechecked[i]))
		if roofs[0] > 0 {
			fmt.Fprintf(stdout, " roofline_fraction=%.2f", medianRatio(rates[i], roofs))
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "ratio int8/float32 (median of per-round ratios) = %.2f\n", medianRatio(rates[1], rates[0]))
	if len(theirs) > 0 {
		fmt.Fprintf(stdout, "median numpy    words_per_second=%.0f (%s, same vocabulary and ε, its own draws of words and noise)\n", stats.Median(theirs), *reference)
		fmt.Fprintf(stdout, "ratio float32/numpy = %.2f, int8/numpy = %.2f (medians of per-round ratios, run back to back)\n",
			medianRatio(rates[0], theirs), medianRatio(rates[1], theirs))
	}
	return nil
}

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

// normalVocabulary returns v words of dimension n with independent normal coordinates of
// standard deviation sigma (GloVe-100d's coordinates have about 0.4).
func normalVocabulary(rng *rand.Rand, v, n int, sigma float64) (*embeddings.Store, error) {
	vecs := make([]float32, v*n)
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64() * sigma)
	}
	words := make([]string, v)
	for i := range words {
		words[i] = "w" + strconv.Itoa(i)
	}
	return embeddings.New(words, n, vecs)
}

// writeRawVectors writes store's vectors as raw little-endian float32 (the reference's
// --vectors format) to a temporary file and returns its name.
func writeRawVectors(store *embeddings.Store) (string, error) {
	f, err := os.CreateTemp("", "dptext-bench-*.f32")
	if err != nil {
		return "", fmt.Errorf("bench decode: vectors for the reference: %w", err)
	}
	w := bufio.NewWriter(f)
	err = binary.Write(w, binary.LittleEndian, store.Matrix())
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("bench decode: writing %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// runReference runs the numpy reference decoder and returns its median words per second.
func runReference(ctx context.Context, python, script, vectors string, vocab, dim, queries int, epsilon float64) (float64, error) {
	cmd := exec.CommandContext(ctx, python, script, "--top-k", strconv.Itoa(vocab), "--dim", strconv.Itoa(dim),
		"--queries", strconv.Itoa(queries), "--epsilon", strconv.FormatFloat(epsilon, 'g', -1, 64), "--vectors", vectors)
	out, err := cmd.Output()
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

// medianRatio is the median over rounds of a[i]/b[i].
func medianRatio(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return stats.Median(r)
}
