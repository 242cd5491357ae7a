package classifiers

import (
	"context"
	"errors"
	"testing"

	"dptext/internal/rngs"
)

// A cancelled context stops training at once, whatever the epochs: with epoch = 10⁹ the fit
// would otherwise run for days (before the check, this test never ended).
func TestFastTextFitStopsWhenCancelled(t *testing.T) {
	train, _, _ := testCorpora()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts := DefaultFastTextOptions()
	opts.Dim, opts.Epochs, opts.Context = 8, 1_000_000_000, ctx
	ft, err := NewFastText(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ft.Fit(rngs.New(1, "fit"), train.docs, train.labels); !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit under a cancelled context: %v, want context.Canceled", err)
	}
}
