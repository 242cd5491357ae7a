package mechanisms

import (
	"slices"
	"strings"
	"testing"

	"dptext/internal/rngs"
)

// TestNoneBag: order "bag" shuffles the original, "keep" returns it.
func TestNoneBag(t *testing.T) {
	doc := strings.Fields("a b c d e f g h")
	keep, err := NewNone("keep")
	if err != nil {
		t.Fatal(err)
	}
	bag, err := NewNone("bag")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewNone("random"); err == nil {
		t.Error(`order = "random" accepted`)
	}
	if got := keep.Apply(rngs.New(1, "n"), doc); !slices.Equal(got, doc) {
		t.Errorf("keep: %v", got)
	}
	moved := false
	for i := range 20 {
		got := bag.Apply(rngs.New(uint64(i), "n"), doc)
		if !slices.Equal(slices.Sorted(slices.Values(got)), doc) {
			t.Fatalf("bag output %v is not a permutation", got)
		}
		moved = moved || !slices.Equal(got, doc)
	}
	if !moved {
		t.Error("bag never changed the order in 20 runs (chance 1/8! per run)")
	}
}
