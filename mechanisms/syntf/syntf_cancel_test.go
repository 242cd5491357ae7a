package syntf

import (
	"context"
	"errors"
	"testing"
)

// A cancelled context stops the computation of ℓ (SIGINT during `dptext run` or `privacy`)
// with the context's error instead of a value.
func TestComputeEllStopsWhenCancelled(t *testing.T) {
	store := randomSynTFStore(t, 2, 50, 6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := synTFTestOptions()
	o.EllBlock, o.EllContext = 1, ctx
	if _, err := ComputeEll(store, 1, o, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ℓ computation returned %v", err)
	}
	o.EllContext = context.Background()
	if _, err := ComputeEll(store, 1, o, 2); err != nil {
		t.Fatal(err)
	}
}
