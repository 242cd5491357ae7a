package attackers

import (
	"math"
	"testing"
)

// The baseline's features are CountVectorizer's: a run of two or more whitespace characters
// (Python's \s, which includes the non-breaking space and U+001C–U+001F) is one space, a
// single one stays as written. Expected output from Python: re.sub(r"\s\s+", " ", s).
// Mutants: no collapse, or Go's unicode.IsSpace alone (misses U+001C), fail.
func TestPAN19ReadsWhitespaceAsCountVectorizer(t *testing.T) {
	in := "One.  Two\n\nThree\nfour\u00a0 five\x1c\x1dsix\u2003end \t"
	want := "One. Two Three\nfour five six\u2003end "
	if got := string(collapseSpaces([]rune(in))); got != want {
		t.Errorf("collapseSpaces(%q) = %q, want %q", in, got, want)
	}
	// The vocabulary comes from the text as written, the counts from the collapsed text, and
	// the length is the written one: "ab  ab" has vocabulary {"ab"} (2 times) but the
	// collapsed "ab ab" also 2 — divided by 6 characters, not 5.
	p, err := NewPAN19(PAN19Options{N: 2, MinFrequency: 2, C: 1, Gamma: "scale", CalibrationFolds: 2})
	if err != nil {
		t.Fatal(err)
	}
	p.vocab = map[string]int{"ab": 0, "  ": 1}
	v := p.features("ab  ab")
	if len(v.idx) != 1 || v.idx[0] != 0 || math.Abs(v.val[0]-2.0/6) > 1e-15 {
		t.Errorf("features = %+v, want only \"ab\" at 2/6 (a double space is never counted)", v)
	}
}

// stratifiedFolds deals as scikit-learn's StratifiedKFold(5) (values from scikit-learn 1.2.1:
// StratifiedKFold(5)._make_test_folds(X, y) for y = a a a a a a b b b b b c c c c c c c).
// Mutant: round-robin within each class (a: 0 1 2 3 4 0) gives other folds and fails.
func TestStratifiedFoldsAsScikitLearn(t *testing.T) {
	labels := []string{"a", "a", "a", "a", "a", "a", "b", "b", "b", "b", "b", "c", "c", "c", "c", "c", "c", "c"}
	want := []int{0, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 1, 2, 2, 3, 4}
	got := stratifiedFolds(labels, 5)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("stratifiedFolds = %v, want %v", got, want)
		}
	}
}
