package linalg

import "golang.org/x/sys/cpu"

// useSqDistAVX2 is whether the CPU runs the assembly kernels of SqDist4x4 and Dots16.
var useSqDistAVX2 = cpu.X86.HasAVX2

//go:noescape
func sqDist4x4AVX2(dst *float64, q *float64, y0, y1, y2, y3 *float32, k int)

// SqDist4x4 sets dst[4r+c] to the float64 squared distance of query c to row y[r], for four
// queries interleaved by dimension in q (q[4t+c] is coordinate t of query c) and four rows of
// equal length k ≥ 1, in one assembly call where the CPU allows; it reports false (dst
// untouched) where it does not. Each sum adds (q_c[t] − y_r[t])² in float64 in order of t, so
// it equals that scalar loop bit for bit.
func SqDist4x4(dst *[16]float64, q []float64, y *[4][]float32) bool {
	k := len(y[0])
	if !assembly || !useSqDistAVX2 || k == 0 {
		return false
	}
	_ = q[4*k-1]
	for r := 1; r < 4; r++ {
		_ = y[r][k-1]
	}
	sqDist4x4AVX2(&dst[0], &q[0], &y[0][0], &y[1][0], &y[2][0], &y[3][0], k)
	return true
}
