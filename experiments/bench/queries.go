package bench

import (
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/mechanisms/metricdp"
)

// EMDQueries returns the noisy vectors the EMD mechanism at ε would decode for the vocabulary
// rows of store (row-major, len(rows)·Dim() values): each is the row's vector plus one draw of
// n-dimensional Laplace noise (radius Gamma(n, 1/ε), direction uniform on the sphere), drawn
// from rng in order, exactly as EMD.Apply draws them (metricdp.LaplaceNoisyVector). Decode and the
// real-data tests of package nearest decode them as realistic queries.
func EMDQueries(rng *rand.Rand, store *embeddings.Store, rows []int, epsilon float64) []float64 {
	dim := store.Dim()
	queries := make([]float64, 0, len(rows)*dim)
	direction := make([]float64, dim)
	for _, row := range rows {
		radius := metricdp.LaplaceRadius(rng, dim, epsilon)
		metricdp.SphereDirection(rng, direction)
		for t, x := range store.Vector(row) {
			queries = append(queries, float64(x)+radius*direction[t])
		}
	}
	return queries
}
