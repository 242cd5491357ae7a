package linalg

import "golang.org/x/sys/cpu"

// usePanelKernel selects the AVX-512 kernel of MulAPanelsT; where vek32.Dot would not run its
// AVX2 code (useDotAVX2 false), the panel kernel would not reproduce it, so it is off there too.
var usePanelKernel = useDotAVX2 && cpu.X86.HasAVX512F

// mulPanelsAVX512 computes the products of each of the m queries of a with the 16 rows of each
// of npanels panels, query i's into dst[i·dstStride:] (panels_amd64.s).
//
//go:noescape
func mulPanelsAVX512(dst *float32, dstStride int, a *float32, m int, panels *float32, npanels, k int)
