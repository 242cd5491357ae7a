package mechanisms

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/viterin/vek/vek32"

	"dptext/embeddings"
)

// unitRows scales every vector to length 1 (to float32 rounding), keeps its direction, and
// leaves a zero vector zero.
func TestUnitRows(t *testing.T) {
	store, err := embeddings.New([]string{"a", "b", "zero"}, 2, []float32{3, 4, -0.5, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	got := unitRows(store)
	want := []float32{0.6, 0.8, -1, 0, 0, 0}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-7 {
			t.Fatalf("unitRows = %v, want %v", got, want)
		}
	}
}

// mulABt must give every entry exactly as vek32.Dot does (the rating rows, and so the golden
// outputs, depend on its last bits): dimensions around the kernel's 32-element chunks, more
// rows of B than one block, and values of mixed magnitude so that summation order shows.
func TestMulABtMatchesVekDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{1, 7, 31, 32, 33, 64, 100, 300} {
		m, n := 3, dotBlockRows+37
		a, b := make([]float32, m*k), make([]float32, n*k)
		for _, x := range [][]float32{a, b} {
			for i := range x {
				x[i] = float32(rng.NormFloat64() * math.Exp(4*rng.NormFloat64()))
			}
		}
		dst := make([]float32, m*n)
		mulABt(dst, a, m, b, n, k)
		for i := range m {
			for j := range n {
				want := vek32.Dot(a[i*k:(i+1)*k], b[j*k:(j+1)*k])
				if got := dst[i*n+j]; math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("k = %d: entry (%d, %d) = %v, vek32.Dot %v", k, i, j, got, want)
				}
			}
		}
	}
}

// A block of 64 query rows against 20,000 vocabulary rows of 100 dimensions (ExpMech's rows).
func BenchmarkMulABt(b *testing.B) {
	const m, n, k = 64, 20000, 100
	rng := rand.New(rand.NewPCG(7, 8))
	a, v := make([]float32, m*k), make([]float32, n*k)
	for _, x := range [][]float32{a, v} {
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
	}
	dst := make([]float32, m*n)
	for b.Loop() {
		mulABt(dst, a, m, v, n, k)
	}
	b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
