package nearest

import (
	"math"
	"math/bits"
	"unsafe"

	"dptext/embeddings"
)

// The Int8 method: a first pass on an 8-bit copy of the vocabulary with a proven error bound.
//
// Quantisation. Row v (n float32 values) is stored as m_v + s_v·a_t with a_t ∈ {0…255}: m_v is
// the row's minimum, s_v = (max − min)/255 rounded up to float32 and a_t = round((v_t − m_v)/s_v).
// The rounding error e_t = v_t − (m_v + s_v·a_t) is known exactly at packing time; the decoder
// keeps ‖e_v‖ per row. A query z (float64) becomes ẑ_t = s_z·b_t with s_z = max_t |z_t| / Q
// rounded up to float32 and b_t ∈ {−Q…Q} the integer nearest to z_t/s_z (computed as
// z_t·(1/s_z): any integer would do, the bound holds for the b_t taken); d_t = z_t − ẑ_t, and ‖d‖, ‖ẑ‖ and
// ‖ẑ‖₁ are computed per query. Q is the layout's query levels (quantised.levels, queryLevels):
// 31 where the AVX2 kernels may run, whose two vpmaddubsw results (unsigned byte × signed byte,
// adjacent pairs summed into int16) are added before they are widened to int32, which must not
// saturate: 2·2·255·31 = 31620 < 2¹⁵. The AVX-512 kernel (vpdpbusd) and the portable one sum
// the products in int32 directly, so where only they run Q is 127, the most a signed byte holds
// (fewer for long rows, see the next paragraph): the query's step is four times finer, its
// share 2‖d‖‖v‖ of the bound four times smaller, and the rows re-checked per query about five
// times fewer (see `dptext bench decode`).
//
// Score. With I_v = Σ_t b_t·a_t (exact in int32) and B_z = Σ_t b_t,
//
//	ẑ·v̂ = Σ_t s_z b_t (m_v + s_v a_t) = s_z·(m_v·B_z + s_v·I_v),
//
// and the kernel computes, in float32, f̂_v = ‖v‖²₃₂ − 2s_z·(m_v·B_z + s_v·I_v) (I_v converts to
// float32 exactly because |I_v| ≤ n·255·Q < 2²⁴: queryLevels keeps Q below 2²⁴/(255·n), and
// 31 is below it for every n ≤ MaxInt8Dim).
//
// Bound. Let f_v = ‖v‖² − 2z·v exactly, u = 2⁻²⁴. Then |f̂_v − f_v| ≤ E_v where
//
//	E_v = 2‖d‖·‖v‖ + 2‖ẑ‖·‖e_v‖ + u·(8.1‖ẑ‖₁ + 3.1)·W_v,   W_v = max(1, ‖v‖², |m_v| + 255·s_v):
//
//   - quantisation: z·v − ẑ·v̂ = ẑ·e + d·v (expand z = ẑ + d, v = v̂ + e), so by Cauchy–Schwarz
//     |2z·v − 2ẑ·v̂| ≤ 2‖ẑ‖‖e_v‖ + 2‖d‖‖v‖;
//   - float32 rounding: the two terms of the sum are bounded by s_z|m_v||B_z| ≤ |m_v|·‖ẑ‖₁ and
//     s_z·s_v|I_v| ≤ 255·s_v·‖ẑ‖₁, so with G = 2‖ẑ‖₁(|m_v| + 255s_v) the product, the
//     multiply-add and the final multiply-subtract (fused or not) err by at most 3.01u·G, the
//     float32 ‖v‖² by 1.01u‖v‖², and the subtraction's result (≤ 1.01‖v‖² + 1.01G) by u times
//     that. Rounding L and U below costs u·(|f̂| + b) more, which the same u-terms and the 2⁻²⁰
//     factor cover: 6.02u‖ẑ‖₁·K_v + 2.02u‖v‖² + u·(1.01‖v‖² + 2.02‖ẑ‖₁K_v) ≤ u(8.1‖ẑ‖₁ + 3.1)W_v.
//
// The naive float64 scan computes Σ(z_t − v_t)² with relative error below (n+3)·2⁻⁵³, so its
// winner w can exceed the exact distance of any row r by δ_w + δ_r with
// δ_v = (n+3)·2⁻⁵²·(‖z‖² + 1)·W_v ≥ (n+3)·2⁻⁵³·(‖z‖ + ‖v‖)². The kernel therefore uses
// b_v = E_v + δ_v and forms L_v = f̂_v − b_v and U_v = f̂_v + b_v; all per-query factors
// (2‖d‖, 2‖ẑ‖, u(8.1‖ẑ‖₁ + 3.1) + (n+3)2⁻⁵²(‖z‖²+1)) are multiplied by 1 + 2⁻²⁰ (covering the
// float32 evaluation of b_v and the float64 evaluation of the norms) and rounded up to float32,
// and the per-row factors ‖v‖, ‖e_v‖ and W_v are rounded up likewise.
//
// Exactness. For the naive winner w and every row r: L_w ≤ f_w − δ_w ≤ f_r + δ_r ≤ U_r, so w
// satisfies L_w ≤ min_r U_r. The decoder keeps every row with L_v ≤ min_r U_r (running minima
// only make the kept set larger), re-decides them in float64 in increasing row order with ties
// to the lowest row, and so returns w.

// MaxInt8Dim is the largest dimension the Int8 method accepts (|I_v| must stay below 2²⁴).
const MaxInt8Dim = 1024

// Layout of the Int8 kernels: queries in tiles of int8TileQueries (per group of 4 dimensions,
// 4 bytes per query), scored int8WideTiles tiles per pass; a panel holds panelRows rows,
// dimensions in groups of 4 (zero-padded: a = b = 0 adds nothing; an even number of groups for
// the AVX2 kernels, which add them in pairs, as many as the dimension needs where the AVX-512
// kernel runs, which takes an odd last group alone), stored per group as 64 bytes, row j's 4 bytes at 4j (the AVX2 kernels read them as two 32-byte halves,
// rows 0–7 and 8–15, the AVX-512 kernel as one 64-byte vector); each panel has
// infoFields×panelRows float32 of per-row data; each query has queryConsts constants broadcast
// to 8 lanes. All kernels evaluate the same float32 expressions in the same order (see
// tileScoresInt8Go), so the bound below covers each.
const (
	int8TileQueries = 4
	int8WideTiles   = 3 // tiles per pass of the AVX-512 kernel (12 queries)
	groupBytes      = 4 * panelRows
	infoFields      = 6 // ‖v‖²₃₂, m_v, s_v, ‖v‖↑, ‖e_v‖↑, W_v↑
	queryConsts     = 5 // B_z, 2s_z, α = 2‖d‖, β = 2‖ẑ‖, γ
)

// quantised is the Int8 copy of a vocabulary.
type quantised struct {
	dim, groups int
	levels      int       // Q: the largest |b_t| of a quantised query (queryLevels)
	panels      []uint8   // npanels × groups × groupBytes
	info        []float32 // npanels × infoFields × panelRows
}

// avx2QueryLevels is Q where the AVX2 kernels may run (six bits and a sign: their int16 pair
// sums must not saturate).
const avx2QueryLevels = 31

// queryLevels returns Q for rows of n dimensions in `groups` groups of 4: avx2QueryLevels when
// the AVX2 kernels may score the layout (an even number of groups on a CPU with AVX2; they add
// groups in pairs and take no other), else the largest Q ≤ 127 with n·255·Q < 2²⁴, so that I_v
// stays exact in float32 (the AVX-512 and portable kernels sum in int32).
func queryLevels(n, groups int) int {
	if useAVX2 && groups%2 == 0 {
		return avx2QueryLevels
	}
	return min(127, ((1<<24)-1)/(255*n))
}

// inflate is the factor 1 + 2⁻²⁰ applied to every bound factor (see the derivation above).
const inflate = 1 + 1.0/(1<<20)

// up32 returns the smallest float32 ≥ x.
func up32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// quantise packs store for the Int8 method.
func quantise(store *embeddings.Store, npanels int) *quantised {
	dim := store.Dim()
	groups := (dim + 7) / 8 * 2 // the AVX2 kernels add two groups at a time
	if useAVX512 {
		groups = (dim + 3) / 4 // the AVX-512 kernel takes an odd last group alone
	}
	q := &quantised{
		dim:    dim,
		groups: groups,
		levels: queryLevels(dim, groups),
		panels: make([]uint8, npanels*groups*groupBytes),
		info:   make([]float32, npanels*infoFields*panelRows),
	}
	for p := range npanels {
		for j := range panelRows {
			q.info[p*infoFields*panelRows+j] = float32(math.Inf(1)) // padding rows never win
		}
	}
	for w := range store.Len() {
		v := store.Vector(w)
		p, j := w/panelRows, w%panelRows
		panel := q.panels[p*groups*groupBytes : (p+1)*groups*groupBytes]
		lo, hi := v[0], v[0]
		sq := 0.0
		for _, x := range v {
			lo, hi = min(lo, x), max(hi, x)
			sq += float64(x) * float64(x)
		}
		m := float64(lo)
		s := float64(up32((float64(hi) - m) / 255))
		errSq := 0.0
		for t, x := range v {
			a := 0.0
			if s > 0 {
				a = min(255, max(0, math.RoundToEven((float64(x)-m)/s)))
			}
			panel[(t/4)*groupBytes+(j/8)*32+(j%8)*4+t%4] = uint8(a)
			e := float64(x) - (m + s*a)
			errSq += e * e
		}
		info := q.info[p*infoFields*panelRows:]
		info[0*panelRows+j] = float32(sq)
		info[1*panelRows+j] = float32(m)
		info[2*panelRows+j] = float32(s)
		info[3*panelRows+j] = up32(math.Sqrt(sq) * inflate)
		info[4*panelRows+j] = up32(math.Sqrt(errSq) * inflate)
		info[5*panelRows+j] = up32(max(1, sq, math.Abs(m)+255*s) * inflate)
	}
	return q
}

// prepareQuery quantises z into slot r of a packed query tile and writes its constants
// (queryConsts values, each broadcast to 8 lanes) to consts.
func (q *quantised) prepareQuery(z []float64, tile []int8, r int, consts []float32) {
	const u = 1.0 / (1 << 24)
	// Four running maxima and sums side by side (the sums' order of addition only moves their
	// float64 rounding, which the factor inflate covers; a NaN coordinate is not a query).
	var zmax, zSq [4]float64
	t := 0
	for ; t+4 <= len(z); t += 4 {
		for i, x := range z[t : t+4 : t+4] {
			if a := math.Abs(x); a > zmax[i] {
				zmax[i] = a
			}
			zSq[i] += x * x
		}
	}
	for i, x := range z[t:] {
		if a := math.Abs(x); a > zmax[i] {
			zmax[i] = a
		}
		zSq[i] += x * x
	}
	levels := float64(q.levels)
	scale := 0.0
	if m := max(zmax[0], zmax[1], zmax[2], zmax[3]); m > 0 {
		scale = float64(up32(m / levels))
	}
	// b_t = x/scale rounded to the nearest integer, ties to even, by adding and subtracting
	// 1.5·2⁵² (exact for |x/scale| ≤ 2⁵¹; here |x/scale| ≤ levels), clamped to ±levels.
	const roundMagic = 1.5 * (1 << 52)
	var sumB, dSq, zhSq, zh1 [4]float64
	inv := 0.0
	if scale > 0 {
		inv = 1 / scale
	}
	// Dimension t goes to byte t mod 4 of the query's slot in group t/4 of the tile.
	for g := 0; 4*g < len(z); g++ {
		xs := z[4*g : min(4*g+4, len(z))]
		out := tile[g*4*int8TileQueries+r*4 : g*4*int8TileQueries+r*4+4]
		for i, x := range xs {
			b := (x*inv + roundMagic) - roundMagic
			if b > levels {
				b = levels
			} else if b < -levels {
				b = -levels
			}
			out[i] = int8(b)
			zh := scale * b
			sumB[i] += b
			dSq[i] += (x - zh) * (x - zh)
			zhSq[i] += zh * zh
			zh1[i] += math.Abs(zh)
		}
	}
	sum := func(a [4]float64) float64 { return (a[0] + a[1]) + (a[2] + a[3]) }
	n := float64(q.dim)
	vals := [queryConsts]float32{
		float32(sum(sumB)),
		float32(2 * scale),
		up32(2 * math.Sqrt(sum(dSq)) * inflate),
		up32(2 * math.Sqrt(sum(zhSq)) * inflate),
		up32((u*(8.1*sum(zh1)+3.1) + (n+3)*math.Ldexp(1, -52)*(sum(zSq)+1)) * inflate),
	}
	for c, v := range vals {
		for l := range 8 {
			consts[c*8+l] = v
		}
	}
}

// decodeTilesInt8 decodes the queries of tiles [lo, hi) with the Int8 method and one scratch
// from the pool.
func (d *Decoder) decodeTilesInt8(queries []float64, dst, second []int, lo, hi int) {
	const tq = int8TileQueries
	s := d.scratch.Get().(*decodeScratch)
	defer d.scratch.Put(s)
	first, last := lo*tq, min(hi*tq, len(dst))
	nq := last - first
	if nq <= 0 {
		return
	}
	qz := d.q
	tileBytes := qz.groups * 4 * tq
	tileConsts := tq * queryConsts * 8
	// Room for a padded last pass (see below): its extra tile is zero queries with zero constants.
	padded := (hi - lo + int8WideTiles - 1) / int8WideTiles * int8WideTiles
	s.packedInt = reuseSlice(s.packedInt, padded*tileBytes)
	clear(s.packedInt)
	s.consts = reuseSlice(s.consts, padded*tileConsts)
	clear(s.consts)
	s.prepare(nq)
	for q := range nq {
		z := queries[(first+q)*d.dim : (first+q+1)*d.dim]
		tile := q / tq
		qz.prepareQuery(z, s.packedInt[tile*tileBytes:(tile+1)*tileBytes], q%tq,
			s.consts[tile*tileConsts+(q%tq)*queryConsts*8:])
	}
	stride := blockPanels * panelRows
	ntiles := hi - lo
	for p0 := 0; p0 < d.npanels; p0 += blockPanels {
		np := min(blockPanels, d.npanels-p0)
		panels := qz.panels[p0*qz.groups*groupBytes : (p0+np)*qz.groups*groupBytes]
		info := qz.info[p0*infoFields*panelRows : (p0+np)*infoFields*panelRows]
		for t0 := 0; t0 < ntiles; t0 += int8WideTiles {
			nt := min(int8WideTiles, ntiles-t0)
			if useAVX512 && nt < int8WideTiles {
				// One AVX-512 pass costs less than two tiles on the other kernels, and the
				// AVX2 kernels cannot take the AVX-512 layout's odd number of groups.
				nt = int8WideTiles
			}
			mins := s.mins[:nt*tq*panelRows]
			copy(mins, infinities[:]) // a block copy: a loop of stores took 1.5 % of a run
			// A row is kept only if its lower bound is within the query's best upper bound
			// (best2 for Decode2), which only decreases: the kernel flags the rows within the
			// best so far, and the collectors re-test them against the block's lowered best.
			thr := s.thr[:nt*tq]
			for r := range thr {
				thr[r] = float32(math.Inf(1))
				if q := t0*tq + r; q < nq {
					thr[r] = s.best[q]
					if second != nil {
						thr[r] = s.best2[q]
					}
				}
			}
			tileScoresInt8Wide(s.packedInt[t0*tileBytes:(t0+nt)*tileBytes], tileBytes, nt, nq-t0*tq, panels, info,
				s.consts[t0*tileConsts:(t0+nt)*tileConsts], qz.groups, np, s.scores, stride, mins, thr, s.masks)
			for r := range nt * tq {
				q := t0*tq + r
				if q >= nq {
					break
				}
				lower, upper := s.scores[r*stride:r*stride+np*panelRows], mins[r*panelRows:(r+1)*panelRows]
				masks := s.masks[r*blockPanels : r*blockPanels+np]
				if second != nil {
					s.collect2(q, lower, nil, upper, 0, p0*panelRows, masks, thr[r])
				} else {
					s.collectBounds(q, lower, masks, thr[r], upper, p0*panelRows)
				}
			}
		}
	}
	for q := range nq {
		z := queries[(first+q)*d.dim : (first+q+1)*d.dim]
		if second != nil {
			dst[first+q], second[first+q] = d.redecide2(z, s.candidates[q], s.best2[q])
		} else {
			dst[first+q] = d.redecide(z, s.candidates[q], s.best[q])
		}
	}
}

// infinities fills the lane minima of a pass before its kernel lowers them.
var infinities = func() (inf [int8WideTiles * int8TileQueries * panelRows]float32) {
	for i := range inf {
		inf[i] = float32(math.Inf(1))
	}
	return inf
}()

// collectBounds lowers the query's best upper bound with the block's (the minimum of the
// lane minima upper) and records the block's rows whose lower bound does not exceed it, looking
// only at the rows masks flags (a superset, see tileScoresInt8Pass: the rows with a lower bound
// ≤ flaggedAt).
func (s *decodeScratch) collectBounds(q int, lower []float32, masks []uint16, flaggedAt float32, upper []float32, firstRow int) {
	best := s.best[q]
	for _, u := range upper {
		if u < best { // plain comparisons: the builtin min's NaN and ±0 rules cost here
			best = u
		}
	}
	s.best[q] = best
	s.appendFlagged(q, lower, masks, flaggedAt, s.best[q], firstRow)
}

// appendFlagged appends to query q's candidates, in increasing row order, the rows flagged in
// masks (bit j of masks[p]: row p·panelRows + j of lower, flagged when its lower bound is
// ≤ flaggedAt) whose lower bound is ≤ threshold. A query's first block is flagged against +Inf,
// every row: its masks are then recomputed against threshold in SIMD (maskAtMost) rather than
// walked bit by bit, which took a fifth of the decoding's time.
func (s *decodeScratch) appendFlagged(q int, lower []float32, masks []uint16, flaggedAt, threshold float32, firstRow int) {
	if flaggedAt > math.MaxFloat32 {
		maskAtMost(lower, threshold, masks)
	}
	// Sixteen masks at a time, as four words of four masks each: this test runs for every
	// block of every query.
	var any uint64
	words := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(masks))), len(masks)/4)
	i := 0
	for ; i+4 <= len(words); i += 4 {
		w := words[i : i+4 : i+4]
		any |= (w[0] | w[1]) | (w[2] | w[3])
	}
	for _, w := range words[i:] {
		any |= w
	}
	for _, m := range masks[len(words)*4:] {
		any |= uint64(m)
	}
	if any == 0 { // the common case once the query has met its neighbourhood
		return
	}
	cands := s.candidates[q] // appended to locally: s.candidates[q] is not reloaded per row
	for p, m := range masks {
		for m != 0 {
			j := p*panelRows + bits.TrailingZeros16(m)
			m &= m - 1
			if l := lower[j]; l <= threshold {
				cands = append(cands, decodeCandidate{row: int32(firstRow + j), score: l})
			}
		}
	}
	s.candidates[q] = cands
}

// tileScoresInt8Pass scores ntiles consecutive query tiles (tile i at q[i·tileBytes:], its
// constants at consts[i·int8TileQueries·queryConsts·8:]) one by one with tileScoresInt8. For
// query r of the pass (tile r/int8TileQueries) it writes the lower bounds to out[r*outStride:]
// as tileScoresInt8 does, lowers minU[r*panelRows+l] to the smallest upper bound of the rows in
// lane l (the AVX-512 kernel uses lane l = j, this one lanes l = j mod minLanes < minLanes: both
// keep the lanes' rows distinct), and sets bit j of masks[r*blockPanels+p] when row j of panel p
// has a lower bound ≤ thr[r] (clearing the others): a superset of the rows query r must see.
// Masks are written for the first queries queries of the pass only (the rest are padding,
// whose masks nobody reads).
func tileScoresInt8Pass(q []int8, tileBytes, ntiles, queries int, panels []uint8, info, consts []float32, groups, npanels int, out []float32, outStride int, minU, thr []float32, masks []uint16) {
	const tq = int8TileQueries
	var mins [tq * 2 * minLanes]float32
	for i := range ntiles {
		for l := range mins {
			mins[l] = float32(math.Inf(1))
		}
		tileScoresInt8(q[i*tileBytes:(i+1)*tileBytes], panels, info, consts[i*tq*queryConsts*8:(i+1)*tq*queryConsts*8],
			groups, npanels, out[i*tq*outStride:], outStride, mins[:])
		for r := range tq {
			lanes := minU[(i*tq+r)*panelRows:]
			for l := range minLanes {
				lanes[l] = min(lanes[l], mins[r*2*minLanes+minLanes+l])
			}
		}
	}
	for r := range min(queries, ntiles*tq) {
		for p := range npanels {
			var m uint16
			for j, l := range out[r*outStride+p*panelRows : r*outStride+(p+1)*panelRows] {
				if l <= thr[r] {
					m |= 1 << j
				}
			}
			masks[r*blockPanels+p] = m
		}
	}
}

// tileScoresInt8Go is the portable Int8 kernel. For the int8TileQueries packed queries q (with
// their constants consts) and npanels packed panels with per-row info, it writes the lower bound
// L of row j of panel p for query r to out[r*outStride+p*panelRows+j] and lowers
// mins[r*2*minLanes+l] and mins[r*2*minLanes+minLanes+l] to the smallest L and U written for
// query r (lane l = j mod minLanes): exactly the contract of the assembly kernel, whose float32
// operations may be fused differently (the bound covers both).
func tileScoresInt8Go(q []int8, panels []uint8, info, consts []float32, groups, npanels int, out []float32, outStride int, mins []float32) {
	for p := range npanels {
		panel := panels[p*groups*groupBytes : (p+1)*groups*groupBytes]
		inf := info[p*infoFields*panelRows : (p+1)*infoFields*panelRows]
		for r := range int8TileQueries {
			var acc [panelRows]int32
			for g := range groups {
				qb := q[g*4*int8TileQueries+r*4 : g*4*int8TileQueries+r*4+4]
				blk := panel[g*groupBytes : (g+1)*groupBytes]
				for j := range panelRows {
					a := blk[(j/8)*32+(j%8)*4 : (j/8)*32+(j%8)*4+4]
					acc[j] += int32(a[0])*int32(qb[0]) + int32(a[1])*int32(qb[1]) + int32(a[2])*int32(qb[2]) + int32(a[3])*int32(qb[3])
				}
			}
			c := consts[r*queryConsts*8:]
			lanes := mins[r*2*minLanes : (r+1)*2*minLanes]
			for j := range panelRows {
				t := inf[panelRows+j]*c[0] + inf[2*panelRows+j]*float32(acc[j])
				f := inf[j] - c[8]*t
				b := c[16]*inf[3*panelRows+j] + c[24]*inf[4*panelRows+j] + c[32]*inf[5*panelRows+j]
				lower, upper := f-b, f+b
				out[r*outStride+p*panelRows+j] = lower
				lanes[j%minLanes] = min(lanes[j%minLanes], lower)
				lanes[minLanes+j%minLanes] = min(lanes[minLanes+j%minLanes], upper)
			}
		}
	}
}

// maskAtMostGo sets masks[p], for every p < len(masks), to the rows j of panel p whose value
// lower[p·panelRows + j] is ≤ threshold (bit j set; NaN is never ≤), clearing the others.
func maskAtMostGo(lower []float32, threshold float32, masks []uint16) {
	for p := range masks {
		var m uint16
		for j, l := range lower[p*panelRows : (p+1)*panelRows] {
			if l <= threshold {
				m |= 1 << j
			}
		}
		masks[p] = m
	}
}
