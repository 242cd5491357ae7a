//go:build !amd64

package nearest

// useVNNI is false off amd64: the portable Int8 kernel is the only one.
var useVNNI = false

// useAVX512 is false off amd64.
var useAVX512 = false

// tileScoresInt8 runs the portable Int8 kernel.
func tileScoresInt8(q []int8, panels []uint8, info, consts []float32, groups, npanels int, out []float32, outStride int, mins []float32) {
	tileScoresInt8Go(q, panels, info, consts, groups, npanels, out, outStride, mins)
}

// tileScoresInt8Wide is tileScoresInt8Pass.
func tileScoresInt8Wide(q []int8, tileBytes, ntiles, queries int, panels []uint8, info, consts []float32, groups, npanels int, out []float32, outStride int, minU, thr []float32, masks []uint16) {
	tileScoresInt8Pass(q, tileBytes, ntiles, queries, panels, info, consts, groups, npanels, out, outStride, minU, thr, masks)
}
