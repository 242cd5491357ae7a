// Package linalg holds the numeric kernels of dptext's hot paths, with their assembly where
// the CPU allows and a Go fallback that gives the same bits: products of a block of query
// vectors with a block of vocabulary vectors (MulABt, and MulAPanelsT on a packed copy),
// unit-length rows (UnitRows), sixteen squared distances at a time (SqDist4x4,
// SquaredDistanceTable), sixteen float64 dot products at a time (Dots16), float32 vector updates
// (AxpyFloat32), a symmetric matrix times a vector (SymMatVec), and the exponentials, divisions
// and clipped negations of the exponential mechanisms (ExpShifted, Divide, NegMin). The
// nearest-word decoders keep their own int8 kernels in package nearest.
//
// Measured on the project machine (AMD EPYC, AVX2/FMA, k = 100; linalg_test.go benchmarks):
// github.com/viterin/vek's assembly dot product reaches about 25 GFLOP/s per core, its MatMul
// about 40 GFLOP/s on two cores (it needs Bᵀ and parallelises internally), and a register-blocked
// pure-Go 4×4 kernel 2–4 GFLOP/s. MulABt therefore runs a dot-product kernel with vek's
// arithmetic over cache-sized blocks of B on the calling goroutine; callers parallelise over
// rows of A.
package linalg

import "github.com/viterin/vek/vek32"

// blockRows is the number of rows of B kept hot while all rows of A pass over them: 512 rows
// of 100 float32 values are 200 KB, within a core's L2 cache.
const blockRows = 512

// assembly is false while a test has switched the assembly kernels off (SetAssembly).
var assembly = true

// SetAssembly switches the assembly kernels on or off (on by default; the CPU must support
// them too) and returns the previous setting. It exists for tests that compare a caller's
// outputs with and without assembly; it is not safe to call while kernels run.
func SetAssembly(on bool) (previous bool) {
	previous, assembly = assembly, on
	return previous
}

// MulABt sets dst (m×n, row-major) to A·Bᵀ, where A is m×k and B is n×k, both row-major, every
// entry computed bit for bit as vek32.Dot computes it (the mechanisms' rating rows depend on
// these last bits, which decide rare ties in sampling and so the golden outputs).
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
