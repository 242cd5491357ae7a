package nearest

import "golang.org/x/sys/cpu"

// useVNNI selects the AVX-VNNI integer sums in the Int8 assembly kernel (runtime CPU check);
// tests switch it off to check the AVX2 sums.
var useVNNI = cpu.X86.HasAVXVNNI

// tileScoresInt8AVX2 is the assembly version of tileScoresInt8Go (int8_amd64.s); vnni selects
// the AVX-VNNI integer sums.
//
//go:noescape
func tileScoresInt8AVX2(q *int8, panels *uint8, info, consts *float32, groups, npanels int, out *float32, outStride int, mins *float32, vnni bool)

// tileScoresInt8 dispatches to the fastest Int8 kernel available on this CPU.
func tileScoresInt8(q []int8, panels []uint8, info, consts []float32, groups, npanels int, out []float32, outStride int, mins []float32) {
	if npanels == 0 {
		return
	}
	if !useAVX2 {
		tileScoresInt8Go(q, panels, info, consts, groups, npanels, out, outStride, mins)
		return
	}
	// Bounds the assembly relies on.
	_ = q[groups*4*int8TileQueries-1]
	_ = panels[npanels*groups*groupBytes-1]
	_ = info[npanels*infoFields*panelRows-1]
	_ = consts[int8TileQueries*queryConsts*8-1]
	_ = out[(int8TileQueries-1)*outStride+npanels*panelRows-1]
	_ = mins[int8TileQueries*2*minLanes-1]
	tileScoresInt8AVX2(&q[0], &panels[0], &info[0], &consts[0], groups, npanels, &out[0], outStride, &mins[0], useVNNI)
}
