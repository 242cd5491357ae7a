package mechanisms

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"dptext/embeddings"
)

// Decoder maps noisy vectors back to words: for a query z it returns the row of the vocabulary
// vector v minimising the float64 squared distance Σ_t (z_t − v_t)² (summed in order t = 0…n−1),
// ties going to the lowest row. This is Vec⁻¹ of Fernandes et al. 2019, Algorithm 2.
//
// The search is exact yet runs in float32: queries are scored in batches by a matrix-product
// kernel (assembly with AVX2 and FMA when the CPU has them) computing f(v) = ‖v‖² − 2·z·v
// block by block over the vocabulary with a fused running minimum. Float32 rounding could flip
// near-ties, so every word whose float32 score lies within a rigorous error bound of the best
// is kept and the candidates are re-decided in float64 (see margin). The answer is therefore
// the same as a naive float64 scan, at any number of workers. A Decoder is safe for concurrent
// use.
type Decoder struct {
	store   *embeddings.Store
	dim     int
	npanels int
	panels  []float32 // npanels panels of panelRows×dim, dimension-major within a panel
	sqNorms []float32 // ‖v‖² rounded to float32; +Inf for the padding rows of the last panel
	maxNorm float64   // max ‖v‖ over the vocabulary
	workers int
	scratch sync.Pool // *decodeScratch
}

// blockPanels is the number of vocabulary panels scored per kernel call: 64 panels of 16 words
// × 100 dimensions are 400 KB, which stay in a core's L2 cache while all of a worker's query
// tiles stream over them.
const blockPanels = 64

// NewDecoder packs the vocabulary of store for decoding. workers is the number of goroutines a
// call to Decode may use (0: GOMAXPROCS).
func NewDecoder(store *embeddings.Store, workers int) (*Decoder, error) {
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("decoder: empty vocabulary")
	}
	if workers < 0 {
		return nil, fmt.Errorf("decoder: workers = %d: want 0 (all cores) or a positive count", workers)
	}
	dim, n := store.Dim(), store.Len()
	npanels := (n + panelRows - 1) / panelRows
	d := &Decoder{
		store:   store,
		dim:     dim,
		npanels: npanels,
		panels:  make([]float32, npanels*panelRows*dim),
		sqNorms: make([]float32, npanels*panelRows),
		workers: workers,
	}
	for i := range d.sqNorms {
		d.sqNorms[i] = float32(math.Inf(1))
	}
	for w := 0; w < n; w++ {
		v := store.Vector(w)
		panel := d.panels[(w/panelRows)*panelRows*dim:]
		sq := 0.0
		for t, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("decoder: the vector of %q (row %d) has the non-finite value %v in dimension %d", store.Word(w), w, x, t)
			}
			panel[t*panelRows+w%panelRows] = x
			sq += float64(x) * float64(x)
		}
		d.sqNorms[w] = float32(sq)
		d.maxNorm = math.Max(d.maxNorm, math.Sqrt(sq))
	}
	d.scratch.New = func() any { return d.newScratch() }
	return d, nil
}

// Store returns the vocabulary the decoder searches.
func (d *Decoder) Store() *embeddings.Store { return d.store }

// Decode sets dst[i] to the vocabulary row nearest to query i, where queries holds len(dst)
// vectors of Store().Dim() float64 values, row-major.
func (d *Decoder) Decode(queries []float64, dst []int) {
	if len(queries) != len(dst)*d.dim {
		panic(fmt.Sprintf("decoder: %d query values for %d queries of dimension %d", len(queries), len(dst), d.dim))
	}
	tiles := (len(dst) + tileQueries - 1) / tileQueries
	workers := d.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, tiles)
	if workers <= 1 {
		d.decodeTiles(queries, dst, 0, tiles)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*tiles/workers, (w+1)*tiles/workers
		wg.Go(func() { d.decodeTiles(queries, dst, lo, hi) })
	}
	wg.Wait()
}

// decodeScratch is one worker's memory: packed query tiles, the kernel's output block, per-query
// search state and the candidate lists.
type decodeScratch struct {
	packed     []float32 // tiles × dim × tileQueries
	scores     []float32 // tileQueries × blockPanels·panelRows
	mins       []float32 // tileQueries × minLanes
	best       []float32 // per query: smallest float32 score seen
	margin     []float32 // per query: error bound of float32 scores (see margin)
	candidates [][]decodeCandidate
}

// decodeCandidate is a vocabulary row whose float32 score came within the margin of the best score
// seen when it was scanned.
type decodeCandidate struct {
	row   int32
	score float32
}

func (d *Decoder) newScratch() any {
	return &decodeScratch{
		scores: make([]float32, tileQueries*blockPanels*panelRows),
		mins:   make([]float32, tileQueries*minLanes),
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

// decodeTiles decodes the queries of tiles [lo, hi) with one scratch from the pool.
func (d *Decoder) decodeTiles(queries []float64, dst []int, lo, hi int) {
	s := d.scratch.Get().(*decodeScratch)
	defer d.scratch.Put(s)
	first, last := lo*tileQueries, min(hi*tileQueries, len(dst))
	nq := last - first
	if nq <= 0 {
		return
	}
	s.packed = reuseSlice(s.packed, (hi-lo)*tileQueries*d.dim)
	clear(s.packed)
	s.best = reuseSlice(s.best, nq)
	s.margin = reuseSlice(s.margin, nq)
	if cap(s.candidates) < nq {
		s.candidates = make([][]decodeCandidate, nq)
	}
	s.candidates = s.candidates[:nq]
	for q := range nq {
		z := queries[(first+q)*d.dim : (first+q+1)*d.dim]
		tile := s.packed[(q/tileQueries)*tileQueries*d.dim:]
		sq := 0.0
		for t, x := range z {
			tile[t*tileQueries+q%tileQueries] = float32(x)
			sq += x * x
		}
		s.best[q] = float32(math.Inf(1))
		s.margin[q] = d.margin(math.Sqrt(sq))
		s.candidates[q] = s.candidates[q][:0]
	}
	for p0 := 0; p0 < d.npanels; p0 += blockPanels {
		np := min(blockPanels, d.npanels-p0)
		width := np * panelRows
		panels := d.panels[p0*panelRows*d.dim : (p0+np)*panelRows*d.dim]
		norms := d.sqNorms[p0*panelRows : (p0+np)*panelRows]
		for tile := 0; tile < hi-lo; tile++ {
			for i := range s.mins {
				s.mins[i] = float32(math.Inf(1))
			}
			tileScores(s.packed[tile*tileQueries*d.dim:(tile+1)*tileQueries*d.dim], panels, norms,
				d.dim, np, s.scores, blockPanels*panelRows, s.mins)
			for r := range tileQueries {
				q := tile*tileQueries + r
				if q >= nq {
					break
				}
				s.collect(q, s.scores[r*blockPanels*panelRows:r*blockPanels*panelRows+width],
					s.mins[r*minLanes:(r+1)*minLanes], p0*panelRows)
			}
		}
	}
	for q := range nq {
		z := queries[(first+q)*d.dim : (first+q+1)*d.dim]
		dst[first+q] = d.redecide(z, s.candidates[q], s.best[q]+s.margin[q])
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

// redecide returns the decodeCandidate (with float32 score ≤ threshold) nearest to z in float64,
// ties by lowest row. Candidates are in increasing row order.
func (d *Decoder) redecide(z []float64, cands []decodeCandidate, threshold float32) int {
	bestRow, bestDist := -1, math.Inf(1)
	for _, c := range cands {
		if c.score > threshold {
			continue
		}
		if dist := decodeDistance(z, d.store.Vector(int(c.row))); dist < bestDist {
			bestRow, bestDist = int(c.row), dist
		}
	}
	return bestRow
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
