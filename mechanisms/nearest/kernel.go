package nearest

// Layout of the scoring kernel. Queries go in tiles of tileQueries rows packed dimension-major
// (q[t*tileQueries+r]); the vocabulary goes in panels of panelRows rows packed the same way
// (panel[t*panelRows+j]), so that the inner loop reads contiguous memory and keeps a
// tileQueries × panelRows block of dot products in registers.
const (
	tileQueries = 6
	panelRows   = 16
	minLanes    = 8 // per-query running minimum is kept in 8 lanes (one AVX register)
)

// tileScoresGo is the portable scoring kernel: for the tileQueries packed queries q and npanels
// packed vocabulary panels it writes out[r*outStride+p*panelRows+j] = sqNorms[p*panelRows+j] −
// 2·(q_r · v_j) in float32 and lowers mins[r*minLanes+l] to the smallest value written for
// query r (lane l = j mod minLanes), exactly the contract of the assembly kernel. Summation
// order may differ from the assembly (which fuses multiply and add); the decoder's error bound
// covers any order.
func tileScoresGo(q, panels, sqNorms []float32, k, npanels int, out []float32, outStride int, mins []float32) {
	var acc [tileQueries][panelRows]float32
	for p := 0; p < npanels; p++ {
		acc = [tileQueries][panelRows]float32{}
		panel := panels[p*panelRows*k : (p+1)*panelRows*k]
		for t := 0; t < k; t++ {
			row := panel[t*panelRows : (t+1)*panelRows]
			qt := q[t*tileQueries : (t+1)*tileQueries]
			for r, x := range qt {
				a := &acc[r]
				for j, v := range row {
					a[j] += x * v
				}
			}
		}
		norms := sqNorms[p*panelRows : (p+1)*panelRows]
		for r := range acc {
			dst := out[r*outStride+p*panelRows : r*outStride+(p+1)*panelRows]
			lanes := mins[r*minLanes : (r+1)*minLanes]
			for j := range dst {
				f := norms[j] - (acc[r][j] + acc[r][j])
				dst[j] = f
				if f < lanes[j%minLanes] {
					lanes[j%minLanes] = f
				}
			}
		}
	}
}
