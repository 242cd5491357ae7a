package nearest

// maskAtMostAVX2 is the assembly version of maskAtMostGo for npanels panels (mask_amd64.s).
//
//go:noescape
func maskAtMostAVX2(lower *float32, npanels int, threshold float32, masks *uint16)

// maskAtMost sets masks[p], for every p < len(masks), to the rows j of panel p whose value
// lower[p·panelRows + j] is ≤ threshold: exactly maskAtMostGo, in AVX2 when the CPU has it.
func maskAtMost(lower []float32, threshold float32, masks []uint16) {
	if len(masks) == 0 {
		return
	}
	if !useAVX2 {
		maskAtMostGo(lower, threshold, masks)
		return
	}
	_ = lower[len(masks)*panelRows-1] // the bound the assembly relies on
	maskAtMostAVX2(&lower[0], len(masks), threshold, &masks[0])
}
