package nearest

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"dptext/embeddings"
)

// Method selects the first-pass kernel of a Decoder. Every method returns the same answers
// (the naive float64 argmin); they differ in speed and memory only.
type Method int

const (
	// Auto is Int8 when the dimension allows it (n ≤ MaxInt8Dim), Float32 otherwise.
	Auto Method = iota
	// Float32 scores every row in float32 (FMA) and re-decides, in float64, the rows within a
	// rigorous rounding margin of the best (see Decoder.margin).
	Float32
	// Int8 scores every row with 8-bit integer multiply-adds on a quantised copy of the
	// vocabulary and re-decides, in float64, the rows whose proven lower bound does not exceed
	// the best proven upper bound (see quantised.go).
	Int8
)

// String returns the method's name as `dptext bench decode` prints it.
func (m Method) String() string {
	switch m {
	case Auto:
		return "auto"
	case Float32:
		return "float32"
	case Int8:
		return "int8"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Options configures a Decoder.
type Options struct {
	// Workers is the number of goroutines a call to Decode may use (0: GOMAXPROCS).
	Workers int
	// Method is the first-pass kernel (zero value: Auto).
	Method Method
}

// Decoder maps noisy vectors back to words: for a query z it returns the row of the vocabulary
// vector v minimising the float64 squared distance Σ_t (z_t − v_t)² (summed in order t = 0…n−1),
// ties going to the lowest row. This is Vec⁻¹ of Fernandes et al. 2019, Algorithm 2.
//
// The search is exact yet runs in reduced precision: queries are scored in batches by a
// matrix-product kernel (assembly with AVX2 and FMA when the CPU has them) computing
// f(v) = ‖v‖² − 2·z·v block by block over the vocabulary with fused running minima. Every row
// the kernel's proven error bound cannot exclude is re-decided in float64, so the answer is the
// same as a naive float64 scan, at any number of workers. A Decoder is safe for concurrent use.
type Decoder struct {
	store   *embeddings.Store
	dim     int
	npanels int
	method  Method // Float32 or Int8 (never Auto)
	workers int

	// Float32 method.
	panels  []float32 // npanels panels of panelRows×dim, dimension-major within a panel
	sqNorms []float32 // ‖v‖² rounded to float32; +Inf for the padding rows of the last panel
	maxNorm float64   // max ‖v‖ over the vocabulary

	// Int8 method (quantised.go).
	q *quantised

	scratch   sync.Pool // *decodeScratch
	queries   atomic.Int64
	rechecked atomic.Int64
}

// blockPanels is the number of vocabulary panels scored per kernel call: 64 panels of 16 words
// × 100 dimensions are 400 KB in float32 (100 KB quantised), which stay in a core's L2 cache
// while all of a worker's query tiles stream over them.
const blockPanels = 64

// New packs the vocabulary of store for decoding with opts.
func New(store *embeddings.Store, opts Options) (*Decoder, error) {
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("decoder: empty vocabulary")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("decoder: workers = %d: want 0 (all cores) or a positive count", opts.Workers)
	}
	dim, n := store.Dim(), store.Len()
	for w := 0; w < n; w++ {
		for t, x := range store.Vector(w) {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("decoder: the vector of %q (row %d) has the non-finite value %v in dimension %d", store.Word(w), w, x, t)
			}
		}
	}
	method := opts.Method
	switch method {
	case Auto:
		method = Int8
		if dim > MaxInt8Dim {
			method = Float32
		}
	case Float32:
	case Int8:
		if dim > MaxInt8Dim {
			return nil, fmt.Errorf("decoder: method int8 needs dimension ≤ %d, the vocabulary has %d", MaxInt8Dim, dim)
		}
	default:
		return nil, fmt.Errorf("decoder: method %d: want Auto, Float32 or Int8", int(method))
	}
	d := &Decoder{
		store:   store,
		dim:     dim,
		npanels: (n + panelRows - 1) / panelRows,
		method:  method,
		workers: opts.Workers,
	}
	if method == Int8 {
		d.q = quantise(store, d.npanels)
	} else {
		d.packFloat32()
	}
	d.scratch.New = func() any { return d.newScratch() }
	return d, nil
}

// packFloat32 builds the float32 panels and norms of the Float32 method.
func (d *Decoder) packFloat32() {
	dim, n := d.dim, d.store.Len()
	d.panels = make([]float32, d.npanels*panelRows*dim)
	d.sqNorms = make([]float32, d.npanels*panelRows)
	for i := range d.sqNorms {
		d.sqNorms[i] = float32(math.Inf(1))
	}
	for w := 0; w < n; w++ {
		v := d.store.Vector(w)
		panel := d.panels[(w/panelRows)*panelRows*dim:]
		sq := 0.0
		for t, x := range v {
			panel[t*panelRows+w%panelRows] = x
			sq += float64(x) * float64(x)
		}
		d.sqNorms[w] = float32(sq)
		d.maxNorm = math.Max(d.maxNorm, math.Sqrt(sq))
	}
}

// Store returns the vocabulary the decoder searches.
func (d *Decoder) Store() *embeddings.Store { return d.store }

// Method returns the first-pass kernel in use (Float32 or Int8).
func (d *Decoder) Method() Method { return d.method }

// Kernel names the first-pass kernel the decoder's method runs on this CPU (chosen at run time
// from the CPU's features): for Int8 "avx512-vnni" (AVX-512 F/BW/VL/VNNI, 12 queries per pass),
// "avx-vnni" or "avx2" (4 queries per pass), for Float32 "avx2-fma", and "portable" (pure Go)
// for either on other CPUs.
func (d *Decoder) Kernel() string {
	switch {
	case !useAVX2:
		return "portable"
	case d.method == Float32:
		return "avx2-fma"
	case useAVX512:
		return "avx512-vnni"
	case useVNNI:
		return "avx-vnni"
	}
	return "avx2"
}

// Stats counts the work of a Decoder since it was made.
type Stats struct {
	// Queries is the number of vectors decoded.
	Queries int64
	// Rechecked is the number of (query, row) pairs re-decided in float64: the rows the first
	// pass could not rule out. Rechecked / (Queries · vocabulary size) is the share re-checked.
	Rechecked int64
}

// Stats returns the counts accumulated by all calls to Decode so far.
func (d *Decoder) Stats() Stats {
	return Stats{Queries: d.queries.Load(), Rechecked: d.rechecked.Load()}
}

// Decode sets dst[i] to the vocabulary row nearest to query i, where queries holds len(dst)
// vectors of Store().Dim() float64 values, row-major.
func (d *Decoder) Decode(queries []float64, dst []int) {
	d.decode(queries, dst, nil)
}

// Decode2 sets first[i] and second[i] to the vocabulary rows nearest and second nearest to query
// i (the two smallest float64 squared distances Σ_t (z_t − v_t)², summed in order, ties going to
// the lowest row, so first[i] is what Decode returns), where queries holds len(first) vectors of
// Store().Dim() float64 values, row-major. It needs a vocabulary of at least two words. The
// first pass keeps every row whose score (or proven lower bound) is within the margin of the
// second-best score (or of the second-best proven upper bound), which contains the float64
// second nearest by the same argument as for the nearest: among any two distinct rows, the
// farther is at least as far as the second nearest.
func (d *Decoder) Decode2(queries []float64, first, second []int) {
	if len(second) != len(first) {
		panic(fmt.Sprintf("decoder: %d first and %d second rows", len(first), len(second)))
	}
	if d.store.Len() < 2 {
		panic("decoder: Decode2 needs a vocabulary of at least two words")
	}
	d.decode(queries, first, second)
}

// decode runs Decode (second == nil) or Decode2.
func (d *Decoder) decode(queries []float64, dst, second []int) {
	if len(queries) != len(dst)*d.dim {
		panic(fmt.Sprintf("decoder: %d query values for %d queries of dimension %d", len(queries), len(dst), d.dim))
	}
	tq, unit := tileQueries, 1
	run := d.decodeTiles
	if d.method == Int8 {
		// Workers get whole passes of the AVX-512 kernel, so that at most one is partial.
		tq, unit, run = int8TileQueries, int8WideTiles, d.decodeTilesInt8
	}
	tiles := (len(dst) + tq - 1) / tq
	units := (tiles + unit - 1) / unit
	workers := d.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, units)
	d.queries.Add(int64(len(dst)))
	if workers <= 1 {
		run(queries, dst, second, 0, tiles)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*units/workers*unit, min(tiles, (w+1)*units/workers*unit)
		wg.Go(func() { run(queries, dst, second, lo, hi) })
	}
	wg.Wait()
}

// decodeScratch is one worker's memory: packed query tiles, the kernel's output block, per-query
// search state and the candidate lists.
type decodeScratch struct {
	packed     []float32 // Float32: tiles × dim × tileQueries
	packedInt  []int8    // Int8: tiles × groups × int8TileQueries × 4
	consts     []float32 // Int8: tiles × int8TileQueries × queryConsts × 8
	scores     []float32 // scratchQueries × blockPanels·panelRows
	mins       []float32 // per query of a kernel call, minLanes (Float32) or panelRows (Int8) lane minima
	thr        []float32 // Int8: per query of a pass, the threshold its rows are flagged against
	masks      []uint16  // Int8: per query of a pass, blockPanels masks of flagged rows
	best       []float32 // per query: smallest float32 score (Float32) or upper bound (Int8) seen
	best2      []float32 // per query, Decode2 only: second smallest of the same (distinct rows)
	margin     []float32 // per query: error bound of float32 scores (Float32 only; see margin)
	candidates [][]decodeCandidate
}

// decodeCandidate is a vocabulary row the first pass could not rule out when it was scanned,
// with its float32 score (Float32) or lower bound (Int8).
type decodeCandidate struct {
	row   int32
	score float32
}

// scratchQueries is the most queries a kernel call scores at once: a Float32 tile or an Int8
// pass of int8WideTiles tiles.
const scratchQueries = max(tileQueries, int8WideTiles*int8TileQueries)

func (d *Decoder) newScratch() any {
	return &decodeScratch{
		scores: make([]float32, scratchQueries*blockPanels*panelRows),
		mins:   make([]float32, scratchQueries*panelRows),
		thr:    make([]float32, scratchQueries),
		masks:  make([]uint16, scratchQueries*blockPanels),
	}
}

// margin returns how far the float32 score f̃ of the float64 winner can lie above the smallest
// float32 score of all words, for a query of norm zNorm: every word within that margin of the
// smallest score is re-decided in float64.
//
// Let u = 2⁻²⁴ (float32 unit roundoff), n the dimension, M = max ‖v‖. For f(v) = ‖v‖² − 2 z·v in
// exact arithmetic, the kernel's value f̃(v) errs by at most E = 1.01·(n+4)·u·(2‖z‖M + M²):
// rounding z to float32 costs u·Σ|z_t v_t|, accumulating n products in float32 (with or without
// FMA, in any order) γ_n·Σ|z_t v_t| with γ_n = nu/(1−nu) (Higham, Accuracy and Stability of
// Numerical Algorithms, §3.1), Σ|z_t v_t| ≤ ‖z‖‖v‖ by Cauchy–Schwarz; doubling is exact;
// rounding ‖v‖² to float32 and the final subtraction cost at most 3u·(‖v‖² + ‖z‖‖v‖). The
// float64 re-decision computes ‖z − v‖² itself with relative error below (n+2)·2⁻⁵³, so the
// float64 winner can trail the exact winner by 2·(n+2)·2⁻⁵³·(‖z‖+M)². Hence the float64
// winner's f̃ is within 2E + 2(n+2)2⁻⁵³(‖z‖+M)² ≤ 2.1·(n+4)·u·(‖z‖+M)² of the smallest f̃;
// that is the margin (rounded up to float32).
func (d *Decoder) margin(zNorm float64) float32 {
	const u = 1.0 / (1 << 24)
	s := zNorm + d.maxNorm
	return float32(2.1*float64(d.dim+4)*u*s*s) * (1 + 1e-6)
}

// decodeTiles decodes the queries of tiles [lo, hi) with the Float32 method and one scratch from
// the pool; with second not nil it finds the two nearest rows (Decode2).
func (d *Decoder) decodeTiles(queries []float64, dst, second []int, lo, hi int) {
	s := d.scratch.Get().(*decodeScratch)
	defer d.scratch.Put(s)
	first, last := lo*tileQueries, min(hi*tileQueries, len(dst))
	nq := last - first
	if nq <= 0 {
		return
	}
	s.packed = reuseSlice(s.packed, (hi-lo)*tileQueries*d.dim)
	clear(s.packed)
	s.prepare(nq)
	s.margin = reuseSlice(s.margin, nq)
	for q := range nq {
		z := queries[(first+q)*d.dim : (first+q+1)*d.dim]
		tile := s.packed[(q/tileQueries)*tileQueries*d.dim:]
		sq := 0.0
		for t, x := range z {
			tile[t*tileQueries+q%tileQueries] = float32(x)
			sq += x * x
		}
		s.margin[q] = d.margin(math.Sqrt(sq))
	}
	mins := s.mins[:tileQueries*minLanes]
	for p0 := 0; p0 < d.npanels; p0 += blockPanels {
		np := min(blockPanels, d.npanels-p0)
		width := np * panelRows
		panels := d.panels[p0*panelRows*d.dim : (p0+np)*panelRows*d.dim]
		norms := d.sqNorms[p0*panelRows : (p0+np)*panelRows]
		for tile := 0; tile < hi-lo; tile++ {
			for i := range mins {
				mins[i] = float32(math.Inf(1))
			}
			tileScores(s.packed[tile*tileQueries*d.dim:(tile+1)*tileQueries*d.dim], panels, norms,
				d.dim, np, s.scores, blockPanels*panelRows, mins)
			for r := range tileQueries {
				q := tile*tileQueries + r
				if q >= nq {
					break
				}
				scores, lanes := s.scores[r*blockPanels*panelRows:r*blockPanels*panelRows+width], mins[r*minLanes:(r+1)*minLanes]
				if second != nil {
					s.collect2(q, scores, lanes, lanes, s.margin[q], p0*panelRows, nil, 0)
				} else {
					s.collect(q, scores, lanes, p0*panelRows)
				}
			}
		}
	}
	for q := range nq {
		z := queries[(first+q)*d.dim : (first+q+1)*d.dim]
		if second != nil {
			dst[first+q], second[first+q] = d.redecide2(z, s.candidates[q], s.best2[q]+s.margin[q])
		} else {
			dst[first+q] = d.redecide(z, s.candidates[q], s.best[q]+s.margin[q])
		}
	}
}

// prepare resets the per-query search state of nq queries.
func (s *decodeScratch) prepare(nq int) {
	s.best = reuseSlice(s.best, nq)
	s.best2 = reuseSlice(s.best2, nq)
	if cap(s.candidates) < nq {
		s.candidates = make([][]decodeCandidate, nq)
	}
	s.candidates = s.candidates[:nq]
	for q := range nq {
		s.best[q] = float32(math.Inf(1))
		s.best2[q] = float32(math.Inf(1))
		s.candidates[q] = s.candidates[q][:0]
	}
}

// collect records the rows of one block whose scores are within the margin of the best score
// so far. Blocks whose minimum is already beyond that are skipped after one comparison, which
// is the common case once a query has met its neighbourhood.
func (s *decodeScratch) collect(q int, scores, lanes []float32, firstRow int) {
	blockMin := lanes[0]
	for _, m := range lanes[1:] {
		blockMin = min(blockMin, m)
	}
	if blockMin > s.best[q]+s.margin[q] {
		return
	}
	s.best[q] = min(s.best[q], blockMin)
	threshold := s.best[q] + s.margin[q]
	for j, f := range scores {
		if f <= threshold {
			s.candidates[q] = append(s.candidates[q], decodeCandidate{row: int32(firstRow + j), score: f})
		}
	}
}

// redecide returns the decodeCandidate (with score ≤ threshold) nearest to z in float64, ties by
// lowest row. Candidates are in increasing row order. Their distances are computed four at a
// time (independent sums, so the additions overlap), each exactly as decodeDistance does.
func (d *Decoder) redecide(z []float64, cands []decodeCandidate, threshold float32) int {
	bestRow, bestDist := -1, math.Inf(1)
	var rows [4]int
	k, checked := 0, 0
	flush := func() {
		dist := d.rowDistances(z, &rows, k)
		for i := range k {
			if dist[i] < bestDist {
				bestRow, bestDist = rows[i], dist[i]
			}
		}
		k = 0
	}
	for _, c := range cands {
		if c.score > threshold {
			continue
		}
		checked++
		rows[k] = int(c.row)
		if k++; k == 4 {
			flush()
		}
	}
	flush()
	d.rechecked.Add(int64(checked))
	return bestRow
}

// decodeDistance4 returns decodeDistance of z and each of a, b, c and e.
func decodeDistance4(z []float64, a, b, c, e []float32) (float64, float64, float64, float64) {
	a, b, c, e = a[:len(z)], b[:len(z)], c[:len(z)], e[:len(z)]
	sa, sb, sc, se := 0.0, 0.0, 0.0, 0.0
	for t, x := range z {
		da := x - float64(a[t])
		sa += da * da
		db := x - float64(b[t])
		sb += db * db
		dc := x - float64(c[t])
		sc += dc * dc
		de := x - float64(e[t])
		se += de * de
	}
	return sa, sb, sc, se
}

// collect2 is collect for Decode2. upperLanes hold, lane by lane, the smallest score (Float32)
// or proven upper bound (Int8) of the block's rows, lowerLanes the smallest score or proven lower
// bound, and lower the rows' scores or lower bounds. The two smallest lane values belong to
// distinct rows, so folding every lane into the running pair (best, best2) keeps best2 at or above
// the second-smallest score (upper bound) of all rows seen: at least two rows score at most
// best2. A row is kept while its score (lower bound) is within margin of best2; blocks whose
// smallest is beyond that are skipped. With masks (Int8 only; lowerLanes is then unused) only
// the rows they flag, those with a lower bound ≤ flaggedAt, are looked at (see
// tileScoresInt8Pass).
func (s *decodeScratch) collect2(q int, lower, lowerLanes, upperLanes []float32, margin float32, firstRow int, masks []uint16, flaggedAt float32) {
	for _, u := range upperLanes {
		switch {
		case u < s.best[q]:
			s.best[q], s.best2[q] = u, s.best[q]
		case u < s.best2[q]:
			s.best2[q] = u
		}
	}
	threshold := s.best2[q] + margin
	if masks != nil {
		s.appendFlagged(q, lower, masks, flaggedAt, threshold, firstRow)
		return
	}
	blockMin := lowerLanes[0]
	for _, m := range lowerLanes[1:] {
		blockMin = min(blockMin, m)
	}
	if blockMin > threshold {
		return
	}
	for j, f := range lower {
		if f <= threshold {
			s.candidates[q] = append(s.candidates[q], decodeCandidate{row: int32(firstRow + j), score: f})
		}
	}
}

// rowDistances returns decodeDistance of z and each of rows[:k], the four together
// (decodeDistance4) when k is 4.
func (d *Decoder) rowDistances(z []float64, rows *[4]int, k int) (dist [4]float64) {
	if k == 4 {
		dist[0], dist[1], dist[2], dist[3] = decodeDistance4(z, d.store.Vector(rows[0]), d.store.Vector(rows[1]),
			d.store.Vector(rows[2]), d.store.Vector(rows[3]))
		return dist
	}
	for i := range k {
		dist[i] = decodeDistance(z, d.store.Vector(rows[i]))
	}
	return dist
}

// redecide2 returns the two decodeCandidates (with score ≤ threshold) nearest to z in float64,
// ties by lowest row. Candidates are in increasing row order and there are at least two.
func (d *Decoder) redecide2(z []float64, cands []decodeCandidate, threshold float32) (int, int) {
	row1, row2 := -1, -1
	dist1, dist2 := math.Inf(1), math.Inf(1)
	var rows [4]int
	k, checked := 0, 0
	flush := func() { // the distances of rows[:k], four at a time, taken in row order
		dist := d.rowDistances(z, &rows, k)
		for i := range k {
			switch {
			case row1 < 0 || dist[i] < dist1:
				row1, row2, dist1, dist2 = rows[i], row1, dist[i], dist1
			case row2 < 0 || dist[i] < dist2:
				row2, dist2 = rows[i], dist[i]
			}
		}
		k = 0
	}
	for _, c := range cands {
		if c.score > threshold {
			continue
		}
		checked++
		rows[k] = int(c.row)
		if k++; k == 4 {
			flush()
		}
	}
	flush()
	d.rechecked.Add(int64(checked))
	return row1, row2
}

// decodeDistance is Σ_t (z_t − v_t)² in float64, summed in order: the decoder's definition of
// nearest.
func decodeDistance(z []float64, v []float32) float64 {
	s := 0.0
	for t, x := range v {
		diff := z[t] - float64(x)
		s += diff * diff
	}
	return s
}

// reuseSlice returns a slice of length n, reusing s's memory when it is large enough.
func reuseSlice[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
