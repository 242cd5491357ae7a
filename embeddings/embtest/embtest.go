// Package embtest builds small embedding stores for the tests of other packages.
package embtest

import (
	"fmt"
	"testing"

	"dptext/embeddings"
)

// Grid returns a store with words "gX_Y" at the integer points (X, Y) of a side×side grid in
// two dimensions (unit spacing), in row order: word X·side + Y is "gX_Y".
func Grid(t testing.TB, side int) *embeddings.Store {
	t.Helper()
	var words []string
	var vecs []float32
	for x := range side {
		for y := range side {
			words = append(words, fmt.Sprintf("g%d_%d", x, y))
			vecs = append(vecs, float32(x), float32(y))
		}
	}
	s, err := embeddings.New(words, 2, vecs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
