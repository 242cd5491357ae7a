package mechanisms

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// dropFirst is a mechanism that drops the first word: not order-preserving in place.
type dropFirst struct{ None }

func (dropFirst) Apply(_ *rand.Rand, doc []string) []string { return doc[1:] }

// TestPrivatizeText: the identity rewrites the text in place, unchanged, with inPlace true; a
// mechanism that changes the word count gets its words joined by spaces, inPlace false.
func TestPrivatizeText(t *testing.T) {
	none, err := NewNone(OrderKeep)
	if err != nil {
		t.Fatal(err)
	}
	src := "The sailor, at dawn,\n  saw the harbour.\n"
	newRNG := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	out, words, inPlace, err := PrivatizeText(none, newRNG, src)
	if err != nil || out != src || !inPlace || len(words) == 0 {
		t.Fatalf("none: %q, %q, in place %v, %v; want the text unchanged, in place", out, words, inPlace, err)
	}
	out, words2, inPlace, err := PrivatizeText(dropFirst{none}, newRNG, src)
	if err != nil || inPlace || out != strings.Join(words[1:], " ")+"\n" || len(words2) != len(words) {
		t.Fatalf("dropFirst: %q, in place %v, %v; want %q, not in place", out, inPlace, err, strings.Join(words[1:], " ")+"\n")
	}
}
