package linalg

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// useDotAVX2 selects the assembly dot-product kernel, under the condition on which vek32.Dot
// uses its AVX2 code (whose arithmetic the kernel reproduces).
var useDotAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && runtime.GOOS != "darwin"

//go:noescape
func dotRowsAVX2(dst, a, b *float32, n, k int)

// dotRows sets dst[j] = vek32.Dot(a, b_j) for the len(dst) rows b_j of b (row-major, len(a)
// columns, len(a) ≥ 1), bit for bit, in one assembly call where the CPU allows.
func dotRows(dst, a, b []float32) {
	k := len(a)
	_ = b[len(dst)*k-1]
	if !assembly || !useDotAVX2 {
		dotRowsGo(dst, a, b)
		return
	}
	dotRowsAVX2(&dst[0], &a[0], &b[0], len(dst), k)
}
