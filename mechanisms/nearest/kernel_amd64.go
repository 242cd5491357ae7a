package nearest

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernels (runtime CPU check); tests switch it off to check the portable ones.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// tileScoresAVX2 is the assembly version of tileScoresGo (kernel_amd64.s).
//
//go:noescape
func tileScoresAVX2(q, panels, sqNorms *float32, k, npanels int, out *float32, outStride int, mins *float32)

// tileScores dispatches to the fastest kernel available on this CPU.
func tileScores(q, panels, sqNorms []float32, k, npanels int, out []float32, outStride int, mins []float32) {
	if npanels == 0 {
		return
	}
	if !useAVX2 {
		tileScoresGo(q, panels, sqNorms, k, npanels, out, outStride, mins)
		return
	}
	// Bounds the assembly relies on.
	_ = q[tileQueries*k-1]
	_ = panels[npanels*panelRows*k-1]
	_ = sqNorms[npanels*panelRows-1]
	_ = out[(tileQueries-1)*outStride+npanels*panelRows-1]
	_ = mins[tileQueries*minLanes-1]
	tileScoresAVX2(&q[0], &panels[0], &sqNorms[0], k, npanels, &out[0], outStride, &mins[0])
}
