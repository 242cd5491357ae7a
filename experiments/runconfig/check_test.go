package runconfig

import (
	"testing"

	"dptext/experiments/registry"
	"dptext/experiments/report"
)

// Parameters that depend on the vocabulary's size (custext's k) are not held against the tiny
// stand-in vocabulary of `dptext check`: a config valid for any real vocabulary passes check.
func TestCheckDoesNotHoldVocabularySizedParametersAgainstItsStandIn(t *testing.T) {
	for _, name := range []string{"custext", "custext+"} {
		o, err := registry.DecodeMechanism(name, report.EpsilonOf(5), "k = 20")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := o.Build(&registry.Env{Embeddings: tinyStore(), Workers: 1, Check: true}, 5); err != nil {
			t.Errorf("%s with k = 20 rejected by check's stand-in vocabulary: %v", name, err)
		}
	}
}
