package linalg

import (
	"math"

	"golang.org/x/sys/cpu"
)

// useExpAVX2 selects the assembly kernels of exp_amd64.s. On a CPU with AVX and FMA,
// math.Exp takes the fused branch the exponential kernel reproduces.
var useExpAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// expKernelConstants are the constants of math.Exp's amd64 assembly (exp_amd64.s), each
// repeated in the four lanes of a register, at the byte offsets exp_amd64.s uses.
type expKernelConstants struct {
	log2e, ln2Upper, ln2Lower, sixteenth [4]float64    // 0, 32, 64, 96
	taylor                               [8][4]float64 // 128 … 352: 1/8! … 1/2!, 1
	two                                  [4]float64    // 384
	lo, hi                               [4]float64    // 416, 448: arguments the fast path takes
	bias                                 [4]int64      // 480: the exponent bias
}

var expConstants = func() *expKernelConstants {
	k := &expKernelConstants{}
	fill := func(dst *[4]float64, x float64) {
		for i := range dst {
			dst[i] = x
		}
	}
	fill(&k.log2e, 1.4426950408889634073599246810018920)
	fill(&k.ln2Upper, 0.69314718055966295651160180568695068359375)
	fill(&k.ln2Lower, 0.28235290563031577122588448175013436025525412068e-12)
	fill(&k.sixteenth, 0.0625)
	for i, c := range []float64{
		2.4801587301587301587e-5, 1.9841269841269841270e-4, 1.3888888888888888889e-3,
		8.3333333333333333333e-3, 4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5, 1,
	} {
		fill(&k.taylor[i], c)
	}
	fill(&k.two, 2)
	// Within ±700 the exponent e = round(x·log₂e) keeps 2^e normal, so math.Exp takes its
	// main path; outside, it may underflow, overflow or scale through a subnormal.
	fill(&k.lo, -700)
	fill(&k.hi, 700)
	for i := range k.bias {
		k.bias[i] = 1023
	}
	return k
}()

//go:noescape
func expShiftedAVX2(dst, src *float64, n int, shift, scale float64, k *expKernelConstants) (done int)

// ExpShifted sets dst[i] = math.Exp(scale*(src[i]-shift)) for every i (len(dst) ≥ len(src)),
// bit for bit, four at a time where the CPU allows.
func ExpShifted(dst, src []float64, shift, scale float64) {
	dst = dst[:len(src)]
	for i := 0; i < len(src); {
		if assembly && useExpAVX2 && len(src)-i >= 4 {
			i += expShiftedAVX2(&dst[i], &src[i], len(src)-i, shift, scale, expConstants)
		}
		// One group the kernel left (special arguments) or the tail.
		for end := min(i+4, len(src)); i < end; i++ {
			dst[i] = math.Exp(scale * (src[i] - shift))
		}
	}
}

//go:noescape
func divideAVX2(x *float64, n int, d float64) (done int)

// Divide sets x[i] /= d for every i, four at a time where the CPU allows.
func Divide(x []float64, d float64) {
	i := 0
	if assembly && useExpAVX2 && len(x) >= 4 {
		i = divideAVX2(&x[0], len(x), d)
	}
	for ; i < len(x); i++ {
		x[i] /= d
	}
}

//go:noescape
func negMinAVX2(dst, src *float64, n int, clip float64) (done int)

// NegMin sets dst[i] = −min(src[i], g) for every i (len(dst) ≥ len(src)), four at a time where
// the CPU allows, with Go's results for every src[i] (NaN included) when g is neither NaN nor
// a zero.
func NegMin(dst, src []float64, g float64) {
	dst = dst[:len(src)]
	i := 0
	if assembly && useExpAVX2 && len(src) >= 4 && g == g && g != 0 {
		i = negMinAVX2(&dst[0], &src[0], len(src), g)
	}
	for ; i < len(src); i++ {
		dst[i] = -min(src[i], g)
	}
}
