package attackers

import (
	"context"
	"testing"

	"dptext/internal/rngs"
)

// A cancelled context cuts the repetitions short: with repetitions = 10⁹ the attribution
// would otherwise run for hours (before the check, this test never ended).
func TestKoppelStopsWhenCancelled(t *testing.T) {
	c := generateStyleCorpus(1, 4, 2, 400)
	ctx, cancel := context.WithCancel(context.Background())
	opts := DefaultKoppelOptions()
	opts.MinTrainWords, opts.Repetitions, opts.Context = 0, 1_000_000_000, ctx
	k, err := NewKoppel(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Fit(rngs.New(1, "fit"), c.known, c.knownAuthor); err != nil {
		t.Fatal(err)
	}
	cancel()
	if pred := k.Predict(rngs.New(1, "predict"), c.unknown); len(pred) != len(c.unknown) {
		t.Fatalf("%d predictions for %d texts", len(pred), len(c.unknown))
	}
}
