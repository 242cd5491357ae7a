package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// SymMatVec must give the plain loop's bits (product rounded, then sum rounded, in order of j)
// for symmetric matrices of sizes around its blocks of sixteen, with values of mixed magnitude
// so that a fused multiply-add or another order shows, with the assembly and without. The
// mutant with a fused multiply-add for the multiply and add fails it.
func TestSymMatVecIsThePlainLoop(t *testing.T) {
	for _, asm := range []bool{true, false} {
		saved := SetAssembly(asm)
		rng := rand.New(rand.NewPCG(48, 6))
		for _, n := range []int{1, 15, 16, 17, 33, 100, 300} {
			m, v := make([]float64, n*n), make([]float64, n)
			for a := range n {
				for b := a; b < n; b++ {
					x := rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
					m[a*n+b], m[b*n+a] = x, x
				}
				v[a] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
			}
			dst := make([]float64, n)
			SymMatVec(dst, m, v)
			for i := range n {
				s := 0.0
				for j := range n {
					p := m[i*n+j] * v[j]
					s += p
				}
				if math.Float64bits(dst[i]) != math.Float64bits(s) {
					SetAssembly(saved)
					t.Fatalf("assembly %v, n = %d: entry %d = %v, the plain loop %v", asm, n, i, dst[i], s)
				}
			}
		}
		SetAssembly(saved)
	}
}
