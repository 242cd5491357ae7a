package linalg

//go:noescape
func axpy32AVX2(dst, x *float32, a float32, n int)

// vectorPrefix is the length of the prefix of an n-element float32 operation the AVX2 kernels
// take (whole groups of eight), 0 where the CPU has none.
func vectorPrefix(n int) int {
	if !assembly || !useSqDistAVX2 {
		return 0
	}
	return n &^ 7
}

// AxpyFloat32 sets dst[i] += a·x[i] for every i < len(dst) (x at least as long), each element
// rounded to float32 after the product and after the sum as the scalar loop does, eight at a
// time in assembly where the CPU allows: the same bits either way. With a = 1 it is
// dst[i] += x[i] exactly (1·x[i] is x[i]).
func AxpyFloat32(dst, x []float32, a float32) {
	x = x[:len(dst)]
	done := vectorPrefix(len(dst))
	if done > 0 {
		axpy32AVX2(&dst[0], &x[0], a, done)
	}
	for i := done; i < len(dst); i++ {
		dst[i] += a * x[i]
	}
}
