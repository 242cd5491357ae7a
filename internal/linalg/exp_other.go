//go:build !amd64

package linalg

import "math"

// ExpShifted sets dst[i] = math.Exp(scale*(src[i]-shift)) for every i (len(dst) ≥ len(src)).
func ExpShifted(dst, src []float64, shift, scale float64) {
	for i, u := range src {
		dst[i] = math.Exp(scale * (u - shift))
	}
}

// Divide sets x[i] /= d for every i.
func Divide(x []float64, d float64) {
	for i := range x {
		x[i] /= d
	}
}

// NegMin sets dst[i] = −min(src[i], g) for every i (len(dst) ≥ len(src)).
func NegMin(dst, src []float64, g float64) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = -min(x, g)
	}
}
