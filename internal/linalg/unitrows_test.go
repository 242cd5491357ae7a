package linalg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/viterin/vek/vek32"
)

// UnitRows scales every row to length 1 (to float32 rounding), keeps its direction, and leaves
// a zero row zero.
func TestUnitRows(t *testing.T) {
	got := UnitRows([]float32{3, 4, -0.5, 0, 0, 0}, 2)
	want := []float32{0.6, 0.8, -1, 0, 0, 0}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-7 {
			t.Fatalf("UnitRows = %v, want %v", got, want)
		}
	}
}

// MulABt must give every entry exactly as vek32.Dot does (the mechanisms' rating rows, and so
// their golden outputs, depend on its last bits), with the assembly kernel and without:
// dimensions around the kernel's 32-element chunks, more rows of B than one block, and values
// of mixed magnitude so that summation order shows.
func TestMulABtMatchesVekDot(t *testing.T) {
	for _, asm := range []bool{true, false} {
		saved := SetAssembly(asm)
		rng := rand.New(rand.NewPCG(5, 6))
		for _, k := range []int{1, 7, 31, 32, 33, 64, 100, 300} {
			m, n := 3, blockRows+37
			a, b := make([]float32, m*k), make([]float32, n*k)
			for _, x := range [][]float32{a, b} {
				for i := range x {
					x[i] = float32(rng.NormFloat64() * math.Exp(4*rng.NormFloat64()))
				}
			}
			dst := make([]float32, m*n)
			MulABt(dst, a, m, b, n, k)
			for i := range m {
				for j := range n {
					want := vek32.Dot(a[i*k:(i+1)*k], b[j*k:(j+1)*k])
					if got := dst[i*n+j]; math.Float32bits(got) != math.Float32bits(want) {
						SetAssembly(saved)
						t.Fatalf("assembly %v, k = %d: entry (%d, %d) = %v, vek32.Dot %v", asm, k, i, j, got, want)
					}
				}
			}
		}
		SetAssembly(saved)
	}
}

// SqDist4x4, where it runs, must give the scalar float64 loop's sums bit for bit; with the
// assembly switched off it must decline (report false) and leave dst untouched.
func TestSqDist4x4MatchesScalarLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, k := range []int{1, 3, 4, 5, 37, 100} {
		q := make([]float64, 4*k)
		for i := range q {
			q[i] = float64(float32(rng.NormFloat64() * math.Exp(3*rng.NormFloat64())))
		}
		var y [4][]float32
		for r := range y {
			y[r] = make([]float32, k)
			for t := range y[r] {
				y[r][t] = float32(rng.NormFloat64() * math.Exp(3*rng.NormFloat64()))
			}
		}
		var dst [16]float64
		if SqDist4x4(&dst, q, &y) {
			for r := range 4 {
				for c := range 4 {
					want := 0.0
					for t := range k {
						d := q[4*t+c] - float64(y[r][t])
						want += d * d
					}
					if got := dst[4*r+c]; math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("k = %d: row %d, query %d: %v, scalar loop %v", k, r, c, got, want)
					}
				}
			}
		}
		saved := SetAssembly(false)
		dst = [16]float64{}
		ran := SqDist4x4(&dst, q, &y)
		SetAssembly(saved)
		if ran || dst != [16]float64{} {
			t.Fatalf("k = %d: with assembly off SqDist4x4 ran (%v) or wrote %v", k, ran, dst)
		}
	}
}

// Dots16, where it runs, must give the scalar float64 loop's sums bit for bit (products and
// sums of widely scaled values, so a fused multiply-add or another order would show); with the
// assembly switched off it must decline and leave dst untouched. Without AVX2 the test only
// checks the decline.
func TestDots16MatchesScalarLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, k := range []int{1, 2, 5, 37, 100} {
		x, bt := make([]float64, k), make([]float64, 16*k)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
		}
		for i := range bt {
			bt[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
		}
		var dst [16]float64
		if Dots16(&dst, x, bt) {
			for c := range 16 {
				want := 0.0
				for t := range k {
					want += x[t] * bt[16*t+c]
				}
				if got := dst[c]; math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("k = %d: row %d: %v, scalar loop %v", k, c, got, want)
				}
			}
		}
		saved := SetAssembly(false)
		dst = [16]float64{}
		ran := Dots16(&dst, x, bt)
		SetAssembly(saved)
		if ran || dst != [16]float64{} {
			t.Fatalf("k = %d: with assembly off Dots16 ran (%v) or wrote %v", k, ran, dst)
		}
	}
}

// SquaredDistanceTable equals SquaredEuclidean bit for bit on every pair, for list lengths with
// whole blocks of four and every remainder, with the assembly kernel and without. Mutant: the
// block's results written with row and column swapped → fail.
func TestSquaredDistanceTableEqualsPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	vector := func() []float32 {
		v := make([]float32, 37)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * math.Exp(2*rng.NormFloat64()))
		}
		return v
	}
	for _, on := range []bool{true, false} {
		saved := SetAssembly(on)
		for _, n := range [][2]int{{0, 3}, {1, 1}, {4, 4}, {7, 9}, {12, 5}} {
			a, b := make([][]float32, n[0]), make([][]float32, n[1])
			for i := range a {
				a[i] = vector()
			}
			for j := range b {
				b[j] = vector()
			}
			got := SquaredDistanceTable(a, b)
			for i := range a {
				for j := range b {
					if want := SquaredEuclidean(a[i], b[j]); math.Float64bits(got[i*len(b)+j]) != math.Float64bits(want) {
						SetAssembly(saved)
						t.Fatalf("assembly %v, %d × %d: pair %d, %d: %v, SquaredEuclidean %v", on, n[0], n[1], i, j, got[i*len(b)+j], want)
					}
				}
			}
		}
		SetAssembly(saved)
	}
}

// AxpyFloat32 gives the scalar float32 loop's bits, and at a = 1 those of dst[i] += x[i] (the
// sums of fastText's hidden layer), at every length from 0 to 40 (whole groups of eight and
// every remainder), over values of widely different scales, with the assembly kernel and
// without. Mutant: the kernel computing a·x + dst with one fused
// multiply-add (VFMADD231PS, one rounding instead of two) → fail.
func TestAxpyFloat32MatchesLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	value := func() float32 { return float32(rng.NormFloat64() * math.Exp(3*rng.NormFloat64())) }
	for _, on := range []bool{true, false} {
		saved := SetAssembly(on)
		for n := range 41 {
			dst, x := make([]float32, n), make([]float32, n+2)
			for i := range dst {
				dst[i] = value()
			}
			for i := range x {
				x[i] = value()
			}
			a := value()
			axpy, add := slices.Clone(dst), slices.Clone(dst)
			AxpyFloat32(axpy, x, a)
			AxpyFloat32(add, x, 1)
			for i := range dst {
				if want := dst[i] + a*x[i]; math.Float32bits(axpy[i]) != math.Float32bits(want) {
					SetAssembly(saved)
					t.Fatalf("assembly %v, n = %d: axpy[%d] = %v, loop %v", on, n, i, axpy[i], want)
				}
				if want := dst[i] + x[i]; math.Float32bits(add[i]) != math.Float32bits(want) {
					SetAssembly(saved)
					t.Fatalf("assembly %v, n = %d: add[%d] = %v, loop %v", on, n, i, add[i], want)
				}
			}
		}
		SetAssembly(saved)
	}
}

// DotProducts.Of gives the plain loop's dot product with every vector bit for bit, for 1 to 40
// vectors (whole groups of sixteen and every remainder), a nil vector giving 0, with the
// assembly kernel and without. Mutant: a vector placed in the next lane of its group → fail.
func TestDotProductsMatchLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	const dim = 37
	value := func() float64 { return rng.NormFloat64() * math.Exp(3*rng.NormFloat64()) }
	for _, on := range []bool{true, false} {
		saved := SetAssembly(on)
		for n := 1; n <= 40; n++ {
			vectors := make([][]float64, n)
			for j := range vectors {
				if j%7 == 3 {
					continue // nil: a zero vector
				}
				vectors[j] = make([]float64, dim)
				for t := range vectors[j] {
					vectors[j][t] = value()
				}
			}
			x := make([]float64, dim)
			for t := range x {
				x[t] = value()
			}
			got := NewDotProducts(vectors, dim).Of(x)
			for j, v := range vectors {
				want := 0.0
				for t := range v {
					want += x[t] * v[t]
				}
				if math.Float64bits(got[j]) != math.Float64bits(want) {
					SetAssembly(saved)
					t.Fatalf("assembly %v, %d vectors: vector %d: %v, loop %v", on, n, j, got[j], want)
				}
			}
		}
		SetAssembly(saved)
	}
}
