package mechanisms

import (
	"math"

	"github.com/viterin/vek/vek32"

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

// dotBlockRows is the number of rows of B kept hot while all rows of A pass over them in
// mulABt: 512 rows of 100 float32 values are 200 KB, within a core's L2 cache.
const dotBlockRows = 512

// mulABt sets dst (m×n, row-major) to A·Bᵀ, where A is m×k and B is n×k, both row-major, every
// entry computed as vek32.Dot computes it. The mechanisms' rating rows come from here rather
// than from linalg.MulABt so that their last bits, which decide rare ties in sampling and so
// the golden outputs, are pinned to that arithmetic.
func mulABt(dst, a []float32, m int, b []float32, n, k int) {
	if len(dst) < m*n || len(a) < m*k || len(b) < n*k {
		panic("mechanisms: mulABt: slice shorter than its dimensions")
	}
	if k == 0 {
		clear(dst[:m*n])
		return
	}
	for j0 := 0; j0 < n; j0 += dotBlockRows {
		j1 := min(j0+dotBlockRows, n)
		for i := range m {
			dotRows(dst[i*n+j0:i*n+j1], a[i*k:(i+1)*k], b[j0*k:j1*k])
		}
	}
}

// dotRowsGo is dotRows by vek32.Dot, one row at a time.
func dotRowsGo(dst, a, b []float32) {
	k := len(a)
	for j := range dst {
		dst[j] = vek32.Dot(a, b[j*k:(j+1)*k])
	}
}
