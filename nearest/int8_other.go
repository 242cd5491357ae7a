//go:build !amd64

package nearest

// useVNNI is false off amd64: the portable Int8 kernel is the only one.
var useVNNI = false

// tileScoresInt8 runs the portable Int8 kernel.
func tileScoresInt8(q []int8, panels []uint8, info, consts []float32, groups, npanels int, out []float32, outStride int, mins []float32) {
	tileScoresInt8Go(q, panels, info, consts, groups, npanels, out, outStride, mins)
}
