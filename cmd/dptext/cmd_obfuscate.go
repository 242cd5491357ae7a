package main

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"dptext/corpus"
	"dptext/experiments/registry"
	"dptext/internal/filehash"
	"dptext/internal/rngs"
	"dptext/internal/text"
	"dptext/mechanisms"
)

func cmdObfuscate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "obfuscate", stderr)
	emb := addEmbeddingFlags(fs, 100000)
	mech := addMechanismFlags(fs, "emd", "mechanism `NAME` (see dptext list)", "param")
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
	if e, ok := registry.Mechanisms[mech.name]; ok {
		for _, k := range slices.Sorted(maps.Keys(e.TextParams)) {
			mech.params.setDefault(k, e.TextParams[k])
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
	// One document, bounded as a corpus's documents are: standard input or a device
	// (/dev/urandom) is read no further than one byte past the limit.
	data, err := io.ReadAll(io.LimitReader(in, corpus.MaxDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > corpus.MaxDocumentBytes {
		return fmt.Errorf("%s: larger than %s, the limit for one document (corpus.MaxDocumentBytes): obfuscate privatises one document; split a longer text into documents",
			name, filehash.Bytes(corpus.MaxDocumentBytes))
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
	env := &registry.Env{Embeddings: store, Workers: 2, RawTexts: []string{string(data)}, Context: ctx}
	if mo.Needs().TrainingCorpus {
		if env.Corpus, err = defaultTrainingCorpus(ctx, stderr); err != nil {
			return err
		}
	}
	m, err := mo.Build(env, mech.epsilon.Value())
	if err != nil {
		return err
	}
	out, words, inPlace, err := mechanisms.PrivatizeText(m, func() *rand.Rand { return rngs.New(releaseSeed, "obfuscate") }, string(data))
	if err != nil {
		return err
	}
	if !inPlace {
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
	kept := "stopwords and punctuation kept as in the input"
	if mechanisms.RewritesStopwords(m) {
		kept = "stopwords among them; punctuation kept as in the input"
	}
	fmt.Fprintf(stderr, "privatised %d words (%s); guarantee: %s\n", len(words), kept, g.Describe(len(words)))
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
