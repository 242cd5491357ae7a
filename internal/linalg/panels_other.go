//go:build !amd64

package linalg

// usePanelKernel is false off amd64: MulAPanelsT is MulABt there.
const usePanelKernel = false

// mulPanelsAVX512 is never called off amd64.
func mulPanelsAVX512(dst *float32, dstStride int, a *float32, m int, panels *float32, npanels, k int) {
	panic("linalg: no panel kernel")
}
