package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"dptext/corpus"
	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/internal/filehash"
	"dptext/internal/fixtures"
	"dptext/internal/resources"
)

// Values whose memory would exceed the machine are refused by the code `dptext check` and
// `run` share, with the estimate and the line of the key, before any data is read; the
// defaults pass. (The estimates scale with the value, so 10⁹ is beyond any machine's memory.)
func TestHugeValuesAreRefusedWithTheirEstimate(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	parse := func(sets, comp string) (*runconfig.Config, error) {
		src := "name = \"huge\"\n" + fixtures.Inputs(corpusPath, vecPath) + sets + comp
		return runconfig.ParseConfig(filepath.Join(t.TempDir(), "huge.toml"), src)
	}
	set := "[[sets]]\nname = \"4\"\nauthors = 4\n"
	for _, c := range []struct{ comp, want string }{
		{"[[mechanisms]]\nname = \"syntf\"\nepsilons = [2]\n[mechanisms.params]\nn = 1000000000\n[[scorers]]\nname = \"sr-nn\"\n", ":20: mechanisms[0].params.n: syntf: n = 1000000000: needs about 179 GiB of memory (24 bytes per synthetic word × n × 8 documents of a cell)"},
		{"[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"char-ngram-svm\"\n[scorers.params]\nngram_max = 1000000000\n", ":21: scorers[0].params.ngram_max: char-ngram-svm: ngram_max = 1000000000: needs about"},
		{"[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"fasttext\"\n[scorers.params]\ndim = 1000000000\n", ":21: scorers[0].params.dim: fasttext: dim = 1000000000: needs about"},
		{"[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"fasttext\"\n[scorers.params]\nword_ngrams = 2\nbucket = 900000000\n", ":22: scorers[0].params.bucket: fasttext: dim = 100, bucket = 900000000: needs about"},
	} {
		cfg, err := parse(set, c.comp)
		if err != nil {
			t.Fatal(err)
		}
		err = runconfig.CheckComponents(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "more than this machine's "+resources.Format(resources.Memory())) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		if _, err := Run(context.Background(), cfg, RunOptions{OutDir: filepath.Join(t.TempDir(), "out"), DataDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run: got %v, want the check's refusal", err)
		}
	}
	_, err := parse("[[sets]]\nname = \"4\"\nauthors = 100000000\n", "[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n")
	if err == nil || !strings.Contains(err.Error(), "sets[0].authors: 100000000: needs about") {
		t.Errorf("authors = 10⁸: %v", err)
	}
	for _, comp := range []string{
		"[[mechanisms]]\nname = \"syntf\"\nepsilons = [2]\n[[scorers]]\nname = \"char-ngram-svm\"\n",
		"[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"fasttext\"\n[scorers.params]\nword_ngrams = 2\n",
	} {
		cfg, err := parse(set, comp)
		if err == nil {
			err = runconfig.CheckComponents(cfg)
		}
		if err != nil {
			t.Errorf("defaults refused: %v", err)
		}
	}
}

// A corpus read that does not end (here a reader that waits until the test ends, as a huge
// file would take minutes) is abandoned once the run is cancelled (before, the run waited for
// the read).
func TestCorpusReadIsAbandonedWhenCancelled(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	withCorpusFormat(t, registry.CorpusFormat{Name: "never-ends", Description: "test: a read that does not end", Caption: registry.PathCaption,
		Read: func(registry.CorpusConfig, string, bool, *filehash.Recorder) ([]corpus.Document, corpus.Skipped, error) {
			<-release
			return nil, nil, errors.New("released")
		}})
	cfg := fixtureConfigFormat(t, "never-ends", corpusPath, vecPath)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := loadCorpusAndVectors(ctx, cfg, t.TempDir(), func(string, ...any) {}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
