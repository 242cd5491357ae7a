package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/viterin/vek/vek32"
)

func randomMatrix(rng *rand.Rand, rows, cols int) []float32 {
	x := make([]float32, rows*cols)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// TestMulABtAgainstFloat64 checks every entry against a float64 product within the float32
// summation bound γ_k·Σ|a_t b_t| (Higham §3.1), γ_k = k·u/(1−k·u), u = 2⁻²⁴.
func TestMulABtAgainstFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dims := range [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 1100, 100}, {2, 3, 0}} {
		m, n, k := dims[0], dims[1], dims[2]
		a, b := randomMatrix(rng, m, k), randomMatrix(rng, n, k)
		dst := make([]float32, m*n)
		for i := range dst {
			dst[i] = 42 // must be overwritten
		}
		MulABt(dst, a, m, b, n, k)
		const u = 1.0 / (1 << 24)
		gamma := float64(k) * u / (1 - float64(k)*u)
		for i := range m {
			for j := range n {
				exact, abs := 0.0, 0.0
				for t := range k {
					p := float64(a[i*k+t]) * float64(b[j*k+t])
					exact += p
					abs += math.Abs(p)
				}
				if got := float64(dst[i*n+j]); math.Abs(got-exact) > gamma*abs+1e-30 {
					t.Fatalf("%v: dst[%d,%d] = %v, exact %v, bound %v", dims, i, j, got, exact, gamma*abs)
				}
			}
		}
	}
}

// goKernel4x4 is the hand-blocked pure-Go alternative measured against vek (B transposed to
// k×n so that the inner loop reads contiguous memory; m and n multiples of 4).
func goKernel4x4(dst, a []float32, m int, bt []float32, n, k int) {
	for i := 0; i+4 <= m; i += 4 {
		a0, a1, a2, a3 := a[i*k:(i+1)*k], a[(i+1)*k:(i+2)*k], a[(i+2)*k:(i+3)*k], a[(i+3)*k:(i+4)*k]
		for j := 0; j+4 <= n; j += 4 {
			var s [4][4]float32
			for t := range k {
				p := bt[t*n+j : t*n+j+4 : t*n+j+4]
				for r, x := range [4]float32{a0[t], a1[t], a2[t], a3[t]} {
					s[r][0] += x * p[0]
					s[r][1] += x * p[1]
					s[r][2] += x * p[2]
					s[r][3] += x * p[3]
				}
			}
			for r := range 4 {
				copy(dst[(i+r)*n+j:(i+r)*n+j+4], s[r][:])
			}
		}
	}
}

const benchM, benchN, benchK = 64, 4096, 100

// benchmarkProduct times product(dst, a, b) for a benchM×benchK matrix A and a B of
// benchN·benchK values (n×k or k×n as the kernel wants; the values are random either way) and
// reports GFLOP/s.
func benchmarkProduct(b *testing.B, product func(dst, a, bm []float32)) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, bm := randomMatrix(rng, benchM, benchK), randomMatrix(rng, benchN, benchK)
	dst := make([]float32, benchM*benchN)
	for b.Loop() {
		product(dst, a, bm)
	}
	b.ReportMetric(2*benchM*benchN*benchK*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkMulABt(b *testing.B) {
	benchmarkProduct(b, func(dst, a, bm []float32) { MulABt(dst, a, benchM, bm, benchN, benchK) })
}

func BenchmarkVekMatMulTransposed(b *testing.B) {
	benchmarkProduct(b, func(dst, a, bt []float32) { vek32.MatMul_Into(dst, a, bt, benchK) })
}

func BenchmarkPureGoKernel4x4(b *testing.B) {
	benchmarkProduct(b, func(dst, a, bt []float32) { goKernel4x4(dst, a, benchM, bt, benchN, benchK) })
}
