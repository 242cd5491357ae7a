package linalg

import (
	"math"
	"testing"
)

// The distances on a 3-4-5 triangle, a zero vector (cosine 0) and opposite vectors (cosine −1).
func TestDistances(t *testing.T) {
	a, b := []float32{0, 0}, []float32{3, 4}
	if d := Euclidean(a, b); d != 5 {
		t.Errorf("Euclidean = %v, want 5", d)
	}
	if d := SquaredEuclidean(a, b); d != 25 {
		t.Errorf("SquaredEuclidean = %v, want 25", d)
	}
	if d := Euclidean64([]float64{3, 4}, a); d != 5 {
		t.Errorf("Euclidean64 = %v, want 5", d)
	}
	if c := Cosine(a, b); c != 0 {
		t.Errorf("Cosine with a zero vector = %v, want 0", c)
	}
	if c := Cosine(b, []float32{-3, -4}); math.Abs(c+1) > 1e-15 {
		t.Errorf("Cosine of opposite vectors = %v, want -1", c)
	}
}
