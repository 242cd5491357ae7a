// Package linalg has the float32 kernels of dptext's hot paths: products of a block of query
// vectors with a block of vocabulary vectors.
//
// Measured on the project machine (AMD EPYC, AVX2/FMA, k = 100; linalg_test.go benchmarks):
// github.com/viterin/vek's assembly dot product reaches about 25 GFLOP/s per core, its MatMul
// about 40 GFLOP/s on two cores (it needs Bᵀ and parallelises internally), and a register-blocked
// pure-Go 4×4 kernel 2–4 GFLOP/s. MulABt therefore runs vek's dot product over cache-sized
// blocks of B on the calling goroutine; callers parallelise over rows of A. (The EMD decoder has
// its own fused assembly kernel in package mechanisms.)
package linalg

import "github.com/viterin/vek/vek32"

// blockRows is the number of rows of B kept hot while all rows of A pass over them: 512 rows
// of 100 float32 values are 200 KB, within a core's L2 cache.
const blockRows = 512

// MulABt sets dst (m×n, row-major) to A·Bᵀ, where A is m×k and B is n×k, both row-major.
func MulABt(dst, a []float32, m int, b []float32, n, k int) {
	if len(dst) < m*n || len(a) < m*k || len(b) < n*k {
		panic("linalg.MulABt: slice shorter than its dimensions")
	}
	if k == 0 {
		clear(dst[:m*n])
		return
	}
	for j0 := 0; j0 < n; j0 += blockRows {
		j1 := min(j0+blockRows, n)
		for i := 0; i < m; i++ {
			ai := a[i*k : (i+1)*k]
			row := dst[i*n : (i+1)*n]
			for j := j0; j < j1; j++ {
				row[j] = vek32.Dot(ai, b[j*k:(j+1)*k])
			}
		}
	}
}
