package mechanisms

import (
	"math"
	"testing"

	"dptext/embeddings"
)

// unitRows scales every vector to length 1 (to float32 rounding), keeps its direction, and
// leaves a zero vector zero.
func TestUnitRows(t *testing.T) {
	store, err := embeddings.New([]string{"a", "b", "zero"}, 2, []float32{3, 4, -0.5, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	got := unitRows(store)
	want := []float32{0.6, 0.8, -1, 0, 0, 0}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-7 {
			t.Fatalf("unitRows = %v, want %v", got, want)
		}
	}
}
