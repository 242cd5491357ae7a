package linalg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// ExpShifted must equal math.Exp bit for bit (the mechanisms' outputs, and their golden files,
// depend on it): random arguments across the whole range, special values, and lengths that
// leave tails.
func TestExpShiftedMatchesMathExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	src := make([]float64, 0, 1<<20)
	for len(src) < cap(src)-64 {
		var x float64
		switch rng.IntN(4) {
		case 0:
			x = rng.Float64()*1500 - 750 // all of exp's range and beyond
		case 1:
			x = rng.Float64()*60 - 50 // the mechanisms' typical range
		case 2:
			x = float64(float32(rng.Float64())) // float32 ratings
		default:
			x = math.Float64frombits(rng.Uint64()) // any bit pattern
		}
		src = append(src, x)
	}
	src = append(src, math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 700, -700,
		math.Nextafter(700, 800), math.Nextafter(-700, -800), 709.78, -745.1, 5e-324, -1e-300)
	for _, c := range []struct{ shift, scale float64 }{{0, 1}, {0.75, 23.75}, {1, 10}} {
		for _, n := range []int{len(src), len(src) - 1, 3, 0} {
			got := make([]float64, n)
			ExpShifted(got, src[:n], c.shift, c.scale)
			for i, x := range src[:n] {
				want := math.Exp(c.scale * (x - c.shift))
				if math.Float64bits(got[i]) != math.Float64bits(want) && !(math.IsNaN(got[i]) && math.IsNaN(want)) {
					t.Fatalf("shift %g, scale %g: exp(%g) = %v (%#x), math.Exp %v (%#x)", c.shift, c.scale,
						c.scale*(x-c.shift), got[i], math.Float64bits(got[i]), want, math.Float64bits(want))
				}
			}
		}
	}
}

// Divide must equal scalar division bit for bit, whatever the length.
func TestDivideMatchesScalarDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 3, 4, 5, 1001} {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64() * math.Exp(20*rng.NormFloat64())
		}
		d := rng.Float64() * 1e5
		got := slices.Clone(x)
		Divide(got, d)
		for i := range x {
			if want := x[i] / d; math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("n = %d: %v / %v = %v, want %v", n, x[i], d, got[i], want)
			}
		}
	}
}

// NegMin must give −min(x, g) with Go's min for every x, NaN, infinities and signed zeros
// included, at lengths around the kernel's groups of four, for clips g of either sign and +Inf.
// Mutants (VMINPD's sources swapped, which returns g for a NaN x; the sign flip dropped) fail.
func TestNegMinIsGoMin(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 5))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-300, -2.5}
	for _, g := range []float64{0.75, 3, -1, math.Inf(1), 1e300} {
		for n := range 12 {
			src := make([]float64, n)
			for i := range src {
				if rng.IntN(3) == 0 {
					src[i] = special[rng.IntN(len(special))]
				} else {
					src[i] = rng.NormFloat64() * 4
				}
			}
			dst := make([]float64, n)
			NegMin(dst, src, g)
			for i, x := range src {
				if want := -min(x, g); math.Float64bits(dst[i]) != math.Float64bits(want) && !(math.IsNaN(dst[i]) && math.IsNaN(want)) {
					t.Fatalf("g = %v, n = %d: −min(%v, g) = %v, Go's %v", g, n, x, dst[i], want)
				}
			}
		}
	}
}
