package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strconv"
	"strings"

	"dptext/embeddings"
	"dptext/experiments"
	"dptext/mechanisms"
)

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
