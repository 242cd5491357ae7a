//go:build !amd64

package mechanisms

// useSqDistAVX2 is false: there is no assembly kernel on this architecture.
var useSqDistAVX2 = false

// sqDist4x4 reports false: no assembly kernel on this architecture (ratingsBatch computes the
// same sums in Go).
func sqDist4x4(dst *[16]float64, q []float64, y *[4][]float32) bool { return false }
