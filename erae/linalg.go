package erae

import (
	"math"

	"github.com/viterin/vek/vek32"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Float is the element type of a model: float32 for training and generation, float64 for the
// gradient checks of the tests.
type Float interface{ ~float32 | ~float64 }

var impl gonum.Implementation

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// gemm sets C (m×n, row stride ldc) to alpha·op(A)·op(B) + beta·C, op transposing when tA/tB
// is set; gonum's pure-Go BLAS (each block of C is computed by one goroutine in a fixed order,
// so results do not depend on scheduling).
func gemm[T Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	switch c := any(c).(type) {
	case []float32:
		impl.Sgemm(trans(tA), trans(tB), m, n, k, float32(alpha), any(a).([]float32), lda, any(b).([]float32), ldb, float32(beta), c, ldc)
	case []float64:
		impl.Dgemm(trans(tA), trans(tB), m, n, k, float64(alpha), any(a).([]float64), lda, any(b).([]float64), ldb, float64(beta), c, ldc)
	}
}

// mulABt sets C (m×n) = A (m×k) · Bᵀ (B n×k) + beta·C.
func mulABt[T Float](c, a, b []T, m, n, k int, beta T) {
	gemm(false, true, m, n, k, 1, a, k, b, k, beta, c, n)
}

// mulAB sets C (m×n) = A (m×k) · B (k×n) + beta·C.
func mulAB[T Float](c, a, b []T, m, n, k int, beta T) {
	gemm(false, false, m, n, k, 1, a, k, b, n, beta, c, n)
}

// mulAtB sets C (m×n) = Aᵀ (A k×m) · B (k×n) + beta·C.
func mulAtB[T Float](c, a, b []T, m, n, k int, beta T) {
	gemm(true, false, m, n, k, 1, a, m, b, n, beta, c, n)
}

func sigmoid[T Float](x T) T { return T(1 / (1 + math.Exp(-float64(x)))) }

func tanh[T Float](x T) T { return T(math.Tanh(float64(x))) }

// softmaxRows replaces every row of x (rows of width n) by its softmax.
func softmaxRows[T Float](x []T, n int) {
	for off := 0; off < len(x); off += n {
		row := x[off : off+n]
		peak := row[0]
		for _, v := range row {
			peak = max(peak, v)
		}
		switch r := any(row).(type) {
		case []float32:
			vek32.SubNumber_Inplace(r, float32(peak))
			vek32.Exp_Inplace(r)
			vek32.DivNumber_Inplace(r, vek32.Sum(r))
		case []float64:
			sum := 0.0
			for i, v := range r {
				r[i] = math.Exp(v - float64(peak))
				sum += r[i]
			}
			for i := range r {
				r[i] /= sum
			}
		}
	}
}

// addRows adds the sum over the rows of x (width n) to dst.
func addRows[T Float](dst, x []T, n int) {
	for off := 0; off < len(x); off += n {
		for j, v := range x[off : off+n] {
			dst[j] += v
		}
	}
}
