package classifiers
import (
"fmt"
"os/exec"
"path/filepath"
"strings"
"testing"
"dptext/learn"
"dptext/rngs"
)

func TestZZBigram(t *testing.T) {
	bin, err := exec.LookPath("fasttext")
	if err != nil {
		t.Skip("fasttext binary not on PATH (apt-get install fasttext); comparison skipped")
	}
	if testing.Short() {
		t.Skip("comparison with the fasttext binary skipped in -short mode")
	}
	train, test := sotuPartyChunks(t, sotuDir())
	tmp := t.TempDir()
	// fastText reads its file in order: write the training chunks shuffled once.
	perm := rngs.New(1, "sotu/order").Perm(len(train.docs))
	writeFastTextFile(t, filepath.Join(tmp, "train.txt"), train, perm)
	identity := make([]int, len(test.docs))
	for i := range identity {
		identity[i] = i
	}
	writeFastTextFile(t, filepath.Join(tmp, "test.txt"), test, identity)

	opts := DefaultFastTextOptions(); opts.WordNgrams = 2
	cmd := exec.Command(bin, "supervised", "-input", filepath.Join(tmp, "train.txt"),
		"-output", filepath.Join(tmp, "model"), "-dim", fmt.Sprint(opts.Dim),
		"-epoch", fmt.Sprint(opts.Epochs), "-lr", fmt.Sprint(opts.LR),
		"-wordNgrams", fmt.Sprint(opts.WordNgrams), "-minCount", fmt.Sprint(opts.MinCount),
		"-thread", "1", "-seed", "1", "-bucket", fmt.Sprint(opts.Bucket), "-verbose", "0")
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
	if err := ft.Fit(rngs.New(2, "sotu/fit"), train.docs, train.labels); err != nil {
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
