package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestBenchDecodePrintsBothMethodsAndRejectsBadFlags(t *testing.T) {
	code, out, errOut := run(t, "bench", "decode", "--synthetic", "500x12", "--queries", "60", "--rounds", "2", "--epsilon", "5", "--ghz", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"vocabulary=500x12", "median float32", "median int8", "rechecked_share=", "roofline_fraction=", "ratio int8/float32"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range [][]string{
		{"--synthetic", "12"}, {"--synthetic", "0x5"}, {"--epsilon", "0"}, {"--queries", "0"}, {"--rounds", "0"}, {"--workers", "-1"}, {"--ghz", "-1"},
	} {
		if code, _, errOut := run(t, append([]string{"bench", "decode"}, bad...)...); code != 2 || !strings.Contains(errOut, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the flag", bad, code, errOut)
		}
	}
}

func TestBenchDecodeSyntheticSizeIsNotCutByTheDefaultTopK(t *testing.T) {
	code, out, errOut := run(t, "bench", "decode", "--synthetic", "100001x3", "--queries", "5", "--rounds", "1", "--ghz", "3")
	if code != 0 || !strings.Contains(out, "vocabulary=100001x3") {
		t.Errorf("exit %d, stderr %q; want vocabulary=100001x3 in:\n%s", code, errOut, out)
	}
	code, out, _ = run(t, "bench", "decode", "--synthetic", "500x3", "--top-k", "200", "--queries", "5", "--rounds", "1", "--ghz", "3")
	if code != 0 || !strings.Contains(out, "vocabulary=200x3") {
		t.Errorf("explicit --top-k 200: exit %d; want vocabulary=200x3 in:\n%s", code, out)
	}
}

// --reference that is a named pipe is refused before any round (the interpreter blocked on it
// for ever after the rounds: `bench decode --reference FIFO`), and so is an --epsilon outside
// EMD's range (1e308 was benchmarked). Mutant: no check of --reference — the command runs its
// rounds and then blocks on the pipe until the test's deadline.
func TestBenchDecodeRefusesAPipeAsReference(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ref.py")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := runWithin(t, "bench", "decode", "--synthetic", "100x10", "--rounds", "1", "--queries", "10", "--reference", fifo); code != 2 || !strings.Contains(stderr, "not a regular file (a pipe)") {
		t.Errorf("--reference FIFO: exit %d, %q", code, stderr)
	}
	if code, stderr := runWithin(t, "bench", "decode", "--synthetic", "100x10", "--rounds", "1", "--queries", "10", "--epsilon", "1e308"); code != 2 || !strings.Contains(stderr, "want a number in [0.001, 1e+12]") {
		t.Errorf("--epsilon 1e308: exit %d, %q", code, stderr)
	}
}

// bench mechanisms checks its flags before it loads any vectors. Mutant: no check of
// --mechanism — the command loads the vectors and fails later, or measures nothing.
func TestBenchMechanismsRejectsBadFlags(t *testing.T) {
	for _, bad := range [][]string{
		{"--epsilon", "0"}, {"--rounds", "0"}, {"--documents", "0"}, {"--words", "0"}, {"--reference-words", "0"}, {"--mechanism", "no-such-mechanism"}, {"--top-k", "-1"},
		{"--epsilon-for", "no-such-mechanism=3"}, {"--epsilon-for", "santext"}, {"--epsilon-for", "santext=-1"}, {"--epsilon-for", "santext=inf"},
	} {
		if code, _, errOut := run(t, append([]string{"bench", "mechanisms"}, bad...)...); code != 2 || !strings.Contains(errOut, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the flag", bad, code, errOut)
		}
	}
}
