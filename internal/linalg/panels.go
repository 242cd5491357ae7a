package linalg

// Panels is a matrix B (n×k) packed for MulAPanelsT: its rows in panels of panelRows rows,
// each panel dimension-major (element t of row r of panel p at data[p·panelRows·k +
// panelRows·t + r], the last panel padded with zero rows). Pack it once per matrix and reuse
// it for every product with B.
type Panels struct {
	n, k int
	b    []float32 // the row-major matrix, for CPUs without the panel kernel
	data []float32
}

// panelRows is the number of rows of a panel: one per lane of a 16-lane register.
const panelRows = 16

// panelBlockBytes is the size of the block of panels kept hot while every query passes over
// it: 16 KB, half a core's L1 data cache, so that the kernel's loads of the panels hit L1 (from
// L2 the kernel ran at half the speed: `go test -bench 'MulABt|MulAPanelsT'`).
const panelBlockBytes = 16 << 10

// PackPanels packs the n×k row-major matrix b (copied: later changes of b are not seen).
func PackPanels(b []float32, n, k int) *Panels {
	if len(b) < n*k || n < 0 || k < 0 {
		panic("linalg.PackPanels: slice shorter than its dimensions")
	}
	p := &Panels{n: n, k: k, b: b[: n*k : n*k]}
	if !usePanelKernel {
		return p
	}
	npanels := (n + panelRows - 1) / panelRows
	p.data = make([]float32, npanels*panelRows*k)
	for r := range n {
		panel := p.data[(r/panelRows)*panelRows*k:]
		for t, x := range b[r*k : (r+1)*k] {
			panel[t*panelRows+r%panelRows] = x
		}
	}
	return p
}

// MulAPanelsT sets dst (m×n, row-major) to A·Bᵀ, where A is m×k row-major and p holds B:
// exactly MulABt(dst, a, m, b, n, k), every entry bit for bit as vek32.Dot computes it, with a
// kernel that computes sixteen rows of B at once (AVX-512) where the CPU has it.
func MulAPanelsT(dst, a []float32, m int, p *Panels) {
	n, k := p.n, p.k
	if len(dst) < m*n || len(a) < m*k {
		panic("linalg.MulAPanelsT: slice shorter than its dimensions")
	}
	if !assembly || !usePanelKernel || k == 0 {
		MulABt(dst, a, m, p.b, n, k)
		return
	}
	full := n / panelRows // panels of panelRows real rows
	block := max(1, panelBlockBytes/(4*panelRows*k))
	for p0 := 0; p0 < full; p0 += block {
		np := min(block, full-p0)
		mulPanelsAVX512(&dst[p0*panelRows], n, &a[0], m, &p.data[p0*panelRows*k], np, k)
	}
	if rest := n - full*panelRows; rest > 0 { // the padded last panel, through a buffer
		last := make([]float32, m*panelRows)
		mulPanelsAVX512(&last[0], panelRows, &a[0], m, &p.data[full*panelRows*k], 1, k)
		for i := range m {
			copy(dst[i*n+full*panelRows:(i+1)*n], last[i*panelRows:i*panelRows+rest])
		}
	}
}
