package erae

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSgemmAllForms checks the float32 product in its four transposition forms (the ones that
// go through transposed copies included) against a float64 triple loop, with row strides wider
// than the rows and beta ≠ 0.
func TestSgemmAllForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const m, n, k = 37, 29, 45
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			ar, ac := m, k
			if tA {
				ar, ac = k, m
			}
			br, bc := k, n
			if tB {
				br, bc = n, k
			}
			lda, ldb, ldc := ac+3, bc+5, n+2
			a := make([]float32, ar*lda)
			b := make([]float32, br*ldb)
			c := make([]float32, m*ldc)
			for _, x := range [][]float32{a, b, c} {
				for i := range x {
					x[i] = float32(rng.NormFloat64())
				}
			}
			want := make([]float64, m*n)
			for i := range m {
				for j := range n {
					s := 0.0
					for l := range k {
						ia, ib := i*lda+l, l*ldb+j
						if tA {
							ia = l*lda + i
						}
						if tB {
							ib = j*ldb + l
						}
						av, bv := a[ia], b[ib]
						s += float64(av) * float64(bv)
					}
					want[i*n+j] = 1.5*s + 0.5*float64(c[i*ldc+j])
				}
			}
			gemm[float32](tA, tB, m, n, k, 1.5, a, lda, b, ldb, 0.5, c, ldc)
			for i := range m {
				for j := range n {
					if d := math.Abs(float64(c[i*ldc+j]) - want[i*n+j]); d > 1e-4*(1+math.Abs(want[i*n+j])) {
						t.Fatalf("tA=%v tB=%v: c[%d][%d] = %g, want %g", tA, tB, i, j, c[i*ldc+j], want[i*n+j])
					}
				}
			}
		}
	}
}

// TestSoftmaxFarBelowPeak checks the float32 softmax against float64 on rows of a 0 and 63
// values from 0.05 to 300 below it, every 0.05 (the range where vek's vector exp gave NaN
// included): every probability must be finite and within 1e−6 of the float64 value, and every
// row must sum to 1.
func TestSoftmaxFarBelowPeak(t *testing.T) {
	const width = 64
	var row []float32
	for x := -0.05; x > -300; x -= 0.05 {
		if len(row)%width == 0 {
			row = append(row, 0)
		}
		row = append(row, float32(x))
	}
	for len(row)%width != 0 {
		row = append(row, -95)
	}
	want := make([]float64, len(row))
	for i, v := range row {
		want[i] = float64(v)
	}
	got := row
	softmaxRows(got, width)
	softmaxRows(want, width)
	for off := 0; off < len(got); off += width {
		sum := 0.0
		for i := off; i < off+width; i++ {
			if g := float64(got[i]); math.IsNaN(g) || math.Abs(g-want[i]) > 1e-6 {
				t.Fatalf("softmax entry %d (row %d) = %g, want %g", i, off/width, got[i], want[i])
			}
			sum += float64(got[i])
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("row %d sums to %g", off/width, sum)
		}
	}
}
