// Package linalg has the float32 kernels of dptext's hot paths: products of a block of query
// vectors with a block of vocabulary vectors.
package linalg

// MulABt sets dst (m×n, row-major) to A·Bᵀ, where A is m×k and B is n×k, both row-major.
func MulABt(dst, a []float32, m int, b []float32, n, k int) {
	for i := 0; i < m; i++ {
		ai := a[i*k : (i+1)*k]
		for j := 0; j < n; j++ {
			bj := b[j*k : (j+1)*k]
			var s float32
			for t := range ai {
				s += ai[t] * bj[t]
			}
			dst[i*n+j] = s
		}
	}
}
