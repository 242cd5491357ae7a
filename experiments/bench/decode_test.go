package bench

import (
	"context"
	"strings"
	"testing"

	"dptext/internal/rngs"
)

// TestDecodeReportsBothDecoders: on a small random vocabulary, Decode prints the header, both
// decoders' rounds and medians, and the ratio line.
func TestDecodeReportsBothDecoders(t *testing.T) {
	rng := rngs.New(1, "bench/test")
	store, err := NormalVocabulary(rng, 300, 8, 0.4)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Decode(context.Background(), &b, store, rng, DecodeOptions{Queries: 20, Rounds: 2, Epsilon: 5, Workers: 1, GHz: 3, Vocabulary: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"vocabulary=300x8 (test) queries=20", "round 1 int8", "median float32", "median int8", "roofline_fraction=", "ratio int8/float32"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
