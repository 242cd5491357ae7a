package erae

import (
	"strings"
	"testing"
)

// A device is refused before it is read (reading /dev/zero never ended), and WeightCount, by
// which a header's sizes are checked against the file before allocating, is NewParams' layout:
// NewParams allocates WeightCount weights and panics when its views do not add up to them.
func TestModelFileBounds(t *testing.T) {
	if _, err := Load("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file") {
		t.Fatalf("Load(/dev/zero): %v", err)
	}
	for _, s := range []Sizes{{Vocab: 2, Embed: 1, Hidden: 1, Latent: 1}, {Vocab: 7, Embed: 3, Hidden: 5, Latent: 2}, {Vocab: 7, Embed: 3, Hidden: 5, Latent: 2, StartState: true}} {
		if got, want := WeightCount(s), float64(len(NewParams[float32](s).All)); got != want {
			t.Errorf("WeightCount(%+v) = %v, want %v", s, got, want)
		}
	}
}
