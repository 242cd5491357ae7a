package linalg

// symMatVecAVX2 computes the first rows entries of SymMatVec (a multiple of 16) in AVX2
// (symmatvec_amd64.s).
//
//go:noescape
func symMatVecAVX2(dst, m, v *float64, n, rows int)

// symMatVecBlock computes dst[:k] of SymMatVec in assembly where the CPU allows, for the
// largest k ≤ n that is a multiple of 16, and returns k.
func symMatVecBlock(dst, m, v []float64) int {
	n := len(v)
	k := n / 16 * 16
	if !assembly || !useExpAVX2 || k == 0 {
		return 0
	}
	_, _ = dst[k-1], m[n*n-1] // the bounds the assembly relies on
	symMatVecAVX2(&dst[0], &m[0], &v[0], n, k)
	return k
}
