//go:build !amd64

package nearest

// useAVX2 is false off amd64: the portable kernel is the only one.
var useAVX2 = false

// tileScores runs the portable kernel.
func tileScores(q, panels, sqNorms []float32, k, npanels int, out []float32, outStride int, mins []float32) {
	tileScoresGo(q, panels, sqNorms, k, npanels, out, outStride, mins)
}
