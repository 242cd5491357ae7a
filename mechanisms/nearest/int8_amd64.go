package nearest

import "golang.org/x/sys/cpu"

// useVNNI selects the AVX-VNNI integer sums in the Int8 assembly kernel (runtime CPU check);
// tests switch it off to check the AVX2 sums.
var useVNNI = cpu.X86.HasAVXVNNI

// useAVX512 selects the AVX-512 Int8 kernel (runtime CPU check, which includes the operating
// system's support for the 512-bit state); tests switch it off to check the others.
var useAVX512 = useAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VNNI

// tileScoresInt8AVX512 is the assembly version of tileScoresInt8Pass for int8WideTiles query
// tiles (int8_avx512_amd64.s); its lower bounds are bit-identical to tileScoresInt8AVX2's.
//
//go:noescape
func tileScoresInt8AVX512(q *int8, tileBytes int, panels *uint8, info, consts *float32, groups, npanels int, out *float32, outStride int, minU, thr *float32, masks *uint16)

// tileScoresInt8Wide is tileScoresInt8Pass, with the AVX-512 kernel when the CPU has it and the
// pass is full.
func tileScoresInt8Wide(q []int8, tileBytes, ntiles, queries int, panels []uint8, info, consts []float32, groups, npanels int, out []float32, outStride int, minU, thr []float32, masks []uint16) {
	if npanels == 0 {
		return
	}
	if !useAVX512 || ntiles != int8WideTiles {
		tileScoresInt8Pass(q, tileBytes, ntiles, queries, panels, info, consts, groups, npanels, out, outStride, minU, thr, masks)
		return
	}
	const wq = int8WideTiles * int8TileQueries
	// Bounds the assembly relies on.
	_ = q[(int8WideTiles-1)*tileBytes+groups*4*int8TileQueries-1]
	_ = panels[npanels*groups*groupBytes-1]
	_ = info[npanels*infoFields*panelRows-1]
	_ = consts[wq*queryConsts*8-1]
	_ = out[(wq-1)*outStride+npanels*panelRows-1]
	_ = minU[wq*panelRows-1]
	_ = thr[wq-1]
	_ = masks[wq*blockPanels-1]
	if npanels > blockPanels {
		panic("nearest: more panels than masks per query")
	}
	tileScoresInt8AVX512(&q[0], tileBytes, &panels[0], &info[0], &consts[0], groups, npanels, &out[0], outStride, &minU[0], &thr[0], &masks[0])
}

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
	if !useAVX2 || groups%2 != 0 { // the AVX2 kernels add groups in pairs
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
