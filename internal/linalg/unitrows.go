package linalg

import "math"

// UnitRows returns the rows of the row-major matrix (rows of dim values) scaled to unit
// Euclidean length, so that a matrix product gives cosines. A zero row stays zero (cosine 0
// with everything).
func UnitRows(matrix []float32, dim int) []float32 {
	unit := make([]float32, len(matrix))
	if dim <= 0 {
		return unit
	}
	for i := range len(matrix) / dim {
		v := matrix[i*dim : (i+1)*dim]
		norm := 0.0
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm == 0 {
			continue
		}
		inv := 1 / math.Sqrt(norm)
		for j, x := range v {
			unit[i*dim+j] = float32(float64(x) * inv)
		}
	}
	return unit
}
