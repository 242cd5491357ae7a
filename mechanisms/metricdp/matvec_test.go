package metricdp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// plainMatVec is the one-row-at-a-time loop matVec replaces, kept as its reference.
func plainMatVec(dst, m, v []float64) {
	n := len(v)
	for i := range n {
		s := 0.0
		for j, x := range v {
			s += m[i*n+j] * x
		}
		dst[i] = s
	}
}

// matVec gives the plain loop's results bit for bit, for sizes with and without a remainder of
// rows (1 to 9, and 100, the vectors' dimension). Mutant (run by hand for issue 48): the four
// rows' sums taken over v in reverse order fails it.
func TestMatVecMatchesPlainLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 5))
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 100} {
		m, v := make([]float64, n*n), make([]float64, n)
		for i := range m {
			m[i] = rng.NormFloat64()
		}
		for i := range v {
			v[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
		}
		got, want := make([]float64, n), make([]float64, n)
		matVec(got, m, v)
		plainMatVec(want, m, v)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n = %d, row %d: %v, plain loop %v", n, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkMatVec is one Mahalanobis perturbation's product (100 × 100) against the plain loop.
func BenchmarkMatVec(b *testing.B) {
	rng := rand.New(rand.NewPCG(48, 6))
	const n = 100
	m, v, dst := make([]float64, n*n), make([]float64, n), make([]float64, n)
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	b.Run("four-rows", func(b *testing.B) {
		for b.Loop() {
			matVec(dst, m, v)
		}
	})
	b.Run("reference=plain", func(b *testing.B) {
		for b.Loop() {
			plainMatVec(dst, m, v)
		}
	})
}
