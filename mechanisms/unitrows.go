package mechanisms

import (
	"math"

	"dptext/embeddings"
)

// unitRows returns the store's vectors scaled to unit Euclidean length, so that a matrix
// product gives cosines. A zero vector stays zero (cosine 0 with everything).
func unitRows(store *embeddings.Store) []float32 {
	dim := store.Dim()
	unit := make([]float32, store.Len()*dim)
	for i := range store.Len() {
		v := store.Vector(i)
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
