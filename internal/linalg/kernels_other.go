//go:build !amd64

package linalg

// SqDist4x4 reports false: there is no assembly kernel on this architecture (the caller
// computes the same sums in Go).
func SqDist4x4(dst *[16]float64, q []float64, y *[4][]float32) bool { return false }

// Dots16 reports false: there is no assembly kernel on this architecture (the caller computes
// the same sums in Go).
func Dots16(dst *[16]float64, x, bt []float64) bool { return false }

// AxpyFloat32 sets dst[i] += a·x[i] for every i < len(dst) (x at least as long).
func AxpyFloat32(dst, x []float32, a float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += a * x[i]
	}
}
