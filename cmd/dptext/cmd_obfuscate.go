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
	"sort"
	"strings"
	"unicode/utf8"

	"dptext/experiments"
	"dptext/mechanisms"
	"dptext/rngs"
	"dptext/text"
)

func cmdObfuscate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("obfuscate", stderr)
	emb := addEmbeddingFlags(fs, 100000)
	mech := addMechanismFlags(fs, "emd", "mechanism name (see dptext list)", "param")
	seed := fs.Uint64("seed", 0, "random seed, for previews and tests only: output made with a known seed is not private (default: a fresh seed from the operating system's random source)")
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
	if e, ok := experiments.Mechanisms[mech.name]; ok {
		for k, v := range e.TextParams {
			if _, set := mech.params[k]; !set {
				mech.params[k] = v
			}
		}
	}
	mo, err := mech.decode()
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
	m, err := mo.Build(env, mech.epsilon)
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
		fmt.Fprintf(stderr, "note: %s does not keep word positions; printing its output words only\n", mech.name)
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
	fmt.Fprintf(stderr, "privatised %d words (stopwords and punctuation kept as in the input); guarantee: %s\n", len(words), describeGuarantee(g, len(words)))
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

// describeGuarantee states g for a document of n words.
func describeGuarantee(g mechanisms.Guarantee, n int) string {
	perWord := g.Epsilon / float64(max(n, 1))
	switch g.Kind {
	case mechanisms.KindMetric:
		switch {
		case math.IsInf(g.Epsilon, 1):
			return "no finite bound between documents that differ in a known word (the mechanism's candidates never include a word's farthest word, so its loss is infinite for some outputs)"
		case g.Metric == mechanisms.MetricCustomisedSets:
			return fmt.Sprintf("ε = %.4g per changed word within a customised set: multiplier at most e^{ε·D} = e^{%.4g·D} against any document of the same length differing in D positions, each within one set; "+
				"documents differing in a word of another set (or, for custext+, in a stopword) get NO protection (∞)", perWord, perWord)
		case g.Metric == mechanisms.MetricSensitivePositional:
			return fmt.Sprintf("positional over sensitive words only: multiplier at most e^{ε·Σᵢ d(xᵢ, x′ᵢ)} = e^{%.4g·d} against any document of the same length whose mean per-position word distance is d, all changed words sensitive; "+
				"non-sensitive words are released unchanged with probability 1 − p and are UNPROTECTED (∞)", g.Epsilon)
		case g.Metric == mechanisms.MetricPositional:
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
