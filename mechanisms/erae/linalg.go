package erae

import (
	"math"
	"sync"

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
		sgemm(tA, tB, m, n, k, float32(alpha), any(a).([]float32), lda, any(b).([]float32), ldb, float32(beta), c, ldc)
	case []float64:
		impl.Dgemm(trans(tA), trans(tB), m, n, k, float64(alpha), any(a).([]float64), lda, any(b).([]float64), ldb, float64(beta), c, ldc)
	}
}

// sgemm is gemm in float32. gonum's pure-Go Sgemm is fast only in the A·Bᵀ form (its inner
// loop is a dot product of two contiguous rows, about 29 GFLOP/s on two cores here); its Aᵀ·B
// and A·B forms run axpy loops at 1–3 GFLOP/s on the shapes of training (measured with
// BenchmarkTrainStep: the output layer's weight gradient took 0.73 s of a 0.9 s step). sgemm
// therefore copies a transposed operand into a scratch buffer (a cost linear in its size) and
// always calls the A·Bᵀ form.
func sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	var bufA, bufB *[]float32
	if tA {
		bufA = transposeScratch.Get().(*[]float32)
		defer transposeScratch.Put(bufA)
		*bufA = transpose(*bufA, a, lda, k, m) // a is k×m: rows become columns
		a, lda = *bufA, k
	}
	if !tB {
		bufB = transposeScratch.Get().(*[]float32)
		defer transposeScratch.Put(bufB)
		*bufB = transpose(*bufB, b, ldb, k, n) // b is k×n
		b, ldb = *bufB, k
	}
	impl.Sgemm(blas.NoTrans, blas.Trans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// transposeScratch holds the buffers of sgemm's transposed copies.
var transposeScratch = sync.Pool{New: func() any { return new([]float32) }}

// transpose writes the transpose of x (rows×cols, row stride ld) into dst (cols×rows,
// row-major), growing dst as needed, in tiles that stay in cache.
func transpose(dst, x []float32, ld, rows, cols int) []float32 {
	if cap(dst) < rows*cols {
		dst = make([]float32, rows*cols)
	}
	dst = dst[:rows*cols]
	const tile = 32
	for i0 := 0; i0 < rows; i0 += tile {
		i1 := min(i0+tile, rows)
		for j0 := 0; j0 < cols; j0 += tile {
			j1 := min(j0+tile, cols)
			for i := i0; i < i1; i++ {
				row := x[i*ld : i*ld+j1]
				for j := j0; j < j1; j++ {
					dst[j*rows+i] = row[j]
				}
			}
		}
	}
	return dst
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
			flushUnderflow(r)
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

// expUnderflow is the input below which exp underflows float32's normal range (ln of its
// smallest normal number, −87.34, rounded down).
const expUnderflow = -88

// flushUnderflow sets every value below expUnderflow to −∞, so that exp gives exactly 0 there.
// vek32.Exp_Inplace (vek v0.4.3) is wrong in its vector path for inputs between about −103.3 and
// −88.4 (NaN, or −4.3e33 at −100; TestSoftmaxFarBelowPeak), where the true value is below
// float32's normal range anyway: a logit that far below its row's largest must give 0, not NaN.
func flushUnderflow(x []float32) {
	for i, v := range x {
		if v < expUnderflow {
			x[i] = float32(math.Inf(-1))
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
