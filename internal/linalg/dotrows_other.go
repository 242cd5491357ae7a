//go:build !amd64

package linalg

// dotRows sets dst[j] = vek32.Dot(a, b_j) for the len(dst) rows b_j of b (row-major, len(a)
// columns, len(a) ≥ 1).
func dotRows(dst, a, b []float32) { dotRowsGo(dst, a, b) }
