//go:build !amd64

package mechanisms

import "math"

// expShifted sets dst[i] = math.Exp(scale*(src[i]-shift)) for every i (len(dst) ≥ len(src)).
func expShifted(dst, src []float64, shift, scale float64) {
	for i, u := range src {
		dst[i] = math.Exp(scale * (u - shift))
	}
}

// divide sets x[i] /= d for every i.
func divide(x []float64, d float64) {
	for i := range x {
		x[i] /= d
	}
}
