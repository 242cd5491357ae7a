package audit

import (
	"math"
	"runtime"
	"sync"

	"dptext/embeddings"
	"dptext/internal/linalg"
)

// nearestPair is the two nearest words of one noisy vector by exhaustive search: rows and
// Euclidean distances, d1 ≤ d2, ties to the lower row.
type nearestPair struct {
	w1, w2 int
	d1, d2 float64
}

// twoNearestAll finds, for each of the k noisy vectors in z (k rows of store.Dim() values),
// its two nearest words over the whole vocabulary of store: the result equals
// twoNearest(store, z_j) for every j, bit for bit, as a search of every row would give it.
// With the intervals of screenRows: let t be the second smallest upper end over all rows; two
// rows have s ≤ t, so the second nearest has s ≤ t, and a row whose lower end exceeds t is
// farther than both, never one of the two nor tied with them. The rows left are searched in
// row order with the exhaustive rule (strictly smaller distance wins, ties to the lower row),
// so the result is the exhaustive one. TestTwoNearestAllIsExhaustive checks it against
// twoNearest, ties and duplicate rows included.
func twoNearestAll(store *embeddings.Store, z []float64, k int) []nearestPair {
	n := store.Dim()
	out := make([]nearestPair, k)
	screenRows(store, z, k, func(j int, lower, upper []float64) {
		t1, t2 := math.Inf(1), math.Inf(1)
		for _, up := range upper {
			switch {
			case up < t1:
				t1, t2 = up, t1
			case up < t2:
				t2 = up
			}
		}
		zj := z[j*n : (j+1)*n]
		b1, b2, s1, s2 := -1, -1, math.Inf(1), math.Inf(1)
		for r, l := range lower {
			if l > t2 {
				continue
			}
			d := sqDist(zj, store.Vector(r))
			switch {
			case d < s1:
				b2, s2, b1, s1 = b1, s1, r, d
			case d < s2:
				b2, s2 = r, d
			}
		}
		out[j] = nearestPair{b1, b2, math.Sqrt(s1), math.Sqrt(s2)}
	})
	return out
}

// screenBlock is the number of noisy vectors whose float32 dot products with the whole
// vocabulary screenRows computes at once (one linalg.MulAPanelsT; 32 × 20,000 float32 = 2.5 MB).
const screenBlock = 32

// screenRows calls visit(j, lower, upper) for each of the k noisy vectors z_j in z (k rows of
// store.Dim() values), on the machine's cores (the calls for different j may run at once;
// lower and upper are valid during the call only), where lower[r] ≤ sqDist(z_j, v_r) ≤
// upper[r] for every row r of store: a screen in float32 that lets the exhaustive searches of
// the audit compute the float64 distance (sqDist, the decision's own arithmetic) only for the
// rows it cannot exclude.
//
// With ẑ the vector rounded to float32 and D_r the float32 dot product ẑ·v_r (linalg.MulAPanelsT),
// the estimate d̃_r = ‖z‖² + ‖v_r‖² − 2·D_r of s_r = sqDist(z, v_r) is within
// B_r = K·(‖z‖ + ‖v_r‖)² of it, K = γ_{n+10} + 10⁻¹², γ_m = m·u/(1 − m·u), u = 2⁻²⁴: the dot
// product's rounding is at most γ_n·Σ|ẑ_t·v_rt| in any order of summation with at most n
// roundings per term (Higham, Accuracy and Stability of Numerical Algorithms, §3.1), rounding z
// adds u·Σ|z_t·v_rt|, Σ|z_t·v_rt| ≤ ‖z‖‖v_r‖ ≤ (‖z‖ + ‖v_r‖)²/2, and 10⁻¹² covers the float64
// roundings of the norms, of d̃_r, of its interval and of s_r. So s_r ∈ [d̃_r − B_r, d̃_r + B_r].
func screenRows(store *embeddings.Store, z []float64, k int, visit func(j int, lower, upper []float64)) {
	n, v := store.Dim(), store.Len()
	if k == 0 {
		return
	}
	rowNorm := make([]float64, v)
	for r := range v {
		s := 0.0
		for _, a := range store.Vector(r) {
			s += float64(a) * float64(a)
		}
		rowNorm[r] = math.Sqrt(s)
	}
	u := math.Ldexp(1, -24)
	m := float64(n + 10)
	factor := m*u/(1-m*u) + 1e-12
	blocks := (k + screenBlock - 1) / screenBlock
	next := make(chan int, blocks)
	for b := range blocks {
		next <- b
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), blocks) {
		wg.Go(func() {
			z32 := make([]float32, screenBlock*n)
			dots := make([]float32, screenBlock*v)
			lower, upper := make([]float64, v), make([]float64, v)
			for b := range next {
				lo, hi := b*screenBlock, min((b+1)*screenBlock, k)
				for i, x := range z[lo*n : hi*n] {
					z32[i] = float32(x)
				}
				linalg.MulAPanelsT(dots, z32, hi-lo, store.Panels())
				for j := lo; j < hi; j++ {
					zz := 0.0
					for _, x := range z[j*n : (j+1)*n] {
						zz += x * x
					}
					zNorm := math.Sqrt(zz)
					for r, d := range dots[(j-lo)*v : (j-lo+1)*v] {
						nr := rowNorm[r]
						est := zz + nr*nr - 2*float64(d)
						s := zNorm + nr
						bound := factor * s * s
						lower[r], upper[r] = est-bound, est+bound
					}
					visit(j, lower, upper)
				}
			}
		})
	}
	wg.Wait()
}
