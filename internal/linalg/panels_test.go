package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/viterin/vek/vek32"
)

// MulAPanelsT must give every entry exactly as vek32.Dot does, like MulABt, with the panel
// kernel and without: dimensions around vek's 32-element chunks (no chunk, one, several, with
// and without a tail), row counts that leave a partial last panel and span several panel
// blocks, signed zeros, and values of mixed magnitude so that any other summation order shows.
// Mutants of the kernel's order (t = s₀ + (s₁ + s₂) + s₃, the lane reduction as
// (u₀+u₁)+(u₂+u₃), the tail summed before the chunks) each fail it.
func TestMulAPanelsTMatchesVekDot(t *testing.T) {
	for _, asm := range []bool{true, false} {
		saved := SetAssembly(asm)
		rng := rand.New(rand.NewPCG(7, 8))
		for _, k := range []int{1, 7, 31, 32, 33, 64, 95, 100, 300} {
			for _, n := range []int{1, 16, 17, 1100} {
				m := 3
				a, b := make([]float32, m*k), make([]float32, n*k)
				for _, x := range [][]float32{a, b} {
					for i := range x {
						x[i] = float32(rng.NormFloat64() * math.Exp(4*rng.NormFloat64()))
						if rng.IntN(50) == 0 {
							x[i] = float32(math.Copysign(0, -1))
						}
					}
				}
				dst := make([]float32, m*n)
				for i := range dst {
					dst[i] = 42 // must be overwritten
				}
				MulAPanelsT(dst, a, m, PackPanels(b, n, k))
				for i := range m {
					for j := range n {
						want := vek32.Dot(a[i*k:(i+1)*k], b[j*k:(j+1)*k])
						if got := dst[i*n+j]; math.Float32bits(got) != math.Float32bits(want) {
							SetAssembly(saved)
							t.Fatalf("assembly %v (panel kernel %v), k = %d, n = %d: entry (%d, %d) = %v, vek32.Dot %v",
								asm, usePanelKernel, k, n, i, j, got, want)
						}
					}
				}
			}
		}
		SetAssembly(saved)
	}
}

// BenchmarkMulAPanelsT times the panel kernel on BenchmarkMulABt's sizes (run both in one
// process: `go test -bench 'MulABt|MulAPanelsT'`, and compare their GFLOP/s).
func BenchmarkMulAPanelsT(b *testing.B) {
	p := (*Panels)(nil)
	benchmarkProduct(b, func(dst, a, bm []float32) {
		if p == nil {
			p = PackPanels(bm, benchN, benchK)
		}
		MulAPanelsT(dst, a, benchM, p)
	})
}
