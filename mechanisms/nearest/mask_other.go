//go:build !amd64

package nearest

// maskAtMost is maskAtMostGo off amd64.
func maskAtMost(lower []float32, threshold float32, masks []uint16) {
	maskAtMostGo(lower, threshold, masks)
}
