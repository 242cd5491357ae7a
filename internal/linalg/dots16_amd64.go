package linalg

//go:noescape
func dots16AVX2(dst *float64, x *float64, bt *float64, k int)

// Dots16 sets dst[c] to the dot product of x with row c of sixteen rows stored by dimension in
// bt (bt[16t+c] is dimension t of row c; len(bt) = 16·len(x)), in one assembly call where the
// CPU allows; it reports false (dst untouched) where it does not. Each sum adds x[t]·row[t] in
// float64 in order of t from 0, one rounding per product and per addition, so it equals that
// scalar loop bit for bit.
func Dots16(dst *[16]float64, x, bt []float64) bool {
	k := len(x)
	if !assembly || !useSqDistAVX2 || k == 0 {
		return false
	}
	_ = bt[16*k-1]
	dots16AVX2(&dst[0], &x[0], &bt[0], k)
	return true
}
