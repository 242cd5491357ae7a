package metricdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"dptext/embeddings"
	"dptext/internal/linalg"
)

// The ellipse's square roots must be symmetric to the last bit: linalg.SymMatVec reads them
// down their columns. Checked on vocabularies of random vectors with mixed magnitudes at several
// λ; a root whose terms are associated as V_ak·(V_bk·√v), which differs between (a, b) and
// (b, a), fails it.
func TestEllipseRootsAreExactlySymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 7))
	for _, dim := range []int{3, 17, 40} {
		words, vecs := make([]string, 200), make([]float32, 200*dim)
		for i := range words {
			words[i] = fmt.Sprintf("w%d", i)
		}
		for i := range vecs {
			vecs[i] = float32(rng.NormFloat64() * math.Exp(rng.NormFloat64()))
		}
		store, err := embeddings.New(words, dim, vecs)
		if err != nil {
			t.Fatal(err)
		}
		for _, lambda := range []float64{0.25, 0.75} {
			e, err := newEllipse(store, lambda)
			if err != nil {
				t.Fatal(err)
			}
			for name, m := range map[string][]float64{"root": e.root, "inverse root": e.invRoot} {
				for a := range dim {
					for b := range dim {
						if math.Float64bits(m[a*dim+b]) != math.Float64bits(m[b*dim+a]) {
							t.Fatalf("dim %d, λ %v: %s entries (%d, %d) = %v and (%d, %d) = %v differ", dim, lambda, name, a, b, m[a*dim+b], b, a, m[b*dim+a])
						}
					}
				}
			}
		}
	}
}

// BenchmarkMatVec is one Mahalanobis perturbation's product (100 × 100, symmetric) by
// linalg.SymMatVec against the plain loop, in one process.
func BenchmarkMatVec(b *testing.B) {
	rng := rand.New(rand.NewPCG(48, 6))
	const n = 100
	m, v, dst := make([]float64, n*n), make([]float64, n), make([]float64, n)
	for a := range n {
		for c := a; c < n; c++ {
			x := rng.NormFloat64()
			m[a*n+c], m[c*n+a] = x, x
		}
		v[a] = rng.NormFloat64()
	}
	b.Run("symmetric", func(b *testing.B) {
		for b.Loop() {
			linalg.SymMatVec(dst, m, v)
		}
	})
	b.Run("reference=plain", func(b *testing.B) {
		for b.Loop() {
			for i := range n {
				s := 0.0
				for j, x := range v {
					s += m[i*n+j] * x
				}
				dst[i] = s
			}
		}
	})
}
