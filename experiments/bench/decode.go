// Package bench holds `dptext bench`: the nearest-word decoding throughput of package nearest
// (`bench decode`) against the roofline of the cores and, optionally, the numpy reference
// decode_reference.py of this folder; and the words per second of every registered mechanism
// through the runner's batch path against its per-token Reference (`bench mechanisms`).
package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"dptext/embeddings"
	"dptext/internal/stats"
	"dptext/mechanisms/nearest"
)

// flopsPerCycle is the float32 peak of one AVX2 core with two FMA units: 2 units × 8 lanes ×
// 2 operations (used with DecodeOptions.GHz).
const flopsPerCycle = 32

// DecodeOptions are the settings of Decode.
type DecodeOptions struct {
	// Queries is the number of noisy vectors decoded per round; Rounds the number of rounds
	// (medians are printed).
	Queries, Rounds int
	// Epsilon is the ε of the EMD noise added to the query words.
	Epsilon float64
	// Workers is the number of goroutines (0: all cores).
	Workers int
	// GHz is the core clock of the roofline, at 32 flop/cycle/core (0: measure the FMA peak
	// before each round).
	GHz float64
	// Reference, when not empty, is a reference script run each round by the interpreter
	// Python, back to back with the decoders.
	Reference, Python string
	// Vocabulary names the vocabulary in the header line.
	Vocabulary string
}

// Decode decodes o.Queries EMD-noisy vectors of words of store drawn by Zipf's law (from rng)
// with the float32 and int8 decoders for o.Rounds rounds, and writes to w each round's words
// per second, re-checked share and roofline, then the medians and ratios. The two decoders
// must decode every query alike.
func Decode(ctx context.Context, w io.Writer, store *embeddings.Store, rng *rand.Rand, o DecodeOptions) error {
	var err error
	vocab, dim := store.Len(), store.Dim()
	rows := nearest.ZipfRows(rng, vocab, o.Queries)
	z := EMDQueries(rng, store, rows, o.Epsilon)

	cores := o.Workers
	if cores == 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	// roofline returns the words/s of a float32 scan at the cores' float32 peak (0 if unknown):
	// measured just before each round, since the machine may be shared.
	roofline := func() float64 {
		peak := float64(cores) * flopsPerCycle * o.GHz * 1e9
		if o.GHz == 0 {
			peak = nearest.MeasureFMAPeak(cores, 200*time.Millisecond)
		}
		return peak / (2 * float64(vocab) * float64(dim))
	}
	fmt.Fprintf(w, "bench decode vocabulary=%dx%d (%s) queries=%d epsilon=%g workers=%d rounds=%d; queries are EMD-noisy vectors of words drawn by Zipf's law over frequency rank\n",
		vocab, dim, o.Vocabulary, o.Queries, o.Epsilon, cores, o.Rounds)
	if o.GHz > 0 {
		fmt.Fprintf(w, "roofline: %d cores × %d flop/cycle × %g GHz / (2·%d·%d flop per word)\n", cores, flopsPerCycle, o.GHz, vocab, dim)
	} else {
		fmt.Fprintf(w, "roofline: measured float32 FMA peak of %d cores (before each round) / (2·%d·%d flop per word)\n", cores, vocab, dim)
	}

	methods := []nearest.Method{nearest.Float32, nearest.Int8}
	decoders := make([]*nearest.Decoder, len(methods))
	for i, m := range methods {
		if decoders[i], err = nearest.New(store, nearest.Options{Workers: o.Workers, Method: m}); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "kernels: float32 %s, int8 %s (runtime CPU check)\n", decoders[0].Kernel(), decoders[1].Kernel())
	var vectorsFile string
	if o.Reference != "" {
		if vectorsFile, err = writeRawVectors(store); err != nil {
			return err
		}
		defer os.Remove(vectorsFile)
	}
	rates := make([][]float64, len(methods))
	rechecked := make([][]float64, len(methods))
	var theirs, roofs []float64
	for round := range o.Rounds {
		roof := roofline()
		roofs = append(roofs, roof)
		fmt.Fprintf(w, "round %d roofline words_per_second=%.0f\n", round, roof)
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
			fmt.Fprintf(w, "round %d %-8s words_per_second=%.0f rechecked_share=%.5f\n", round, methods[i], wps, perQuery/float64(vocab))
		}
		if o.Reference != "" {
			ref, err := runReference(ctx, o.Python, o.Reference, vectorsFile, vocab, dim, o.Queries, o.Epsilon)
			if err != nil {
				return err
			}
			theirs = append(theirs, ref)
			fmt.Fprintf(w, "round %d %-8s words_per_second=%.0f\n", round, "numpy", ref)
		}
	}
	for i, m := range methods {
		fmt.Fprintf(w, "median %-8s words_per_second=%.0f rechecked_share=%.5f", m, stats.Median(rates[i]), stats.Median(rechecked[i]))
		if roofs[0] > 0 {
			fmt.Fprintf(w, " roofline_fraction=%.2f", medianRatio(rates[i], roofs))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "ratio int8/float32 (median of per-round ratios) = %.2f\n", medianRatio(rates[1], rates[0]))
	if len(theirs) > 0 {
		fmt.Fprintf(w, "median numpy    words_per_second=%.0f (%s, same vocabulary and ε, its own draws of words and noise)\n", stats.Median(theirs), o.Reference)
		fmt.Fprintf(w, "ratio float32/numpy = %.2f, int8/numpy = %.2f (medians of per-round ratios, run back to back)\n",
			medianRatio(rates[0], theirs), medianRatio(rates[1], theirs))
	}
	return nil
}

// NormalVocabulary returns v words of dimension n with independent normal coordinates of
// standard deviation sigma (GloVe-100d's coordinates have about 0.4).
func NormalVocabulary(rng *rand.Rand, v, n int, sigma float64) (*embeddings.Store, error) {
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
