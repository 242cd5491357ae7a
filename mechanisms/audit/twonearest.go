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

// twoNearestBlock is the number of noisy vectors whose float32 dot products with the whole
// vocabulary twoNearestAll computes at once (one linalg.MulABt; 32 × 20,000 float32 = 2.5 MB).
const twoNearestBlock = 32

// twoNearestAll finds, for each of the k noisy vectors in z (k rows of store.Dim() values),
// its two nearest words over the whole vocabulary of store: the result equals
// twoNearest(store, z_j) for every j, bit for bit, as a search of every row would give it.
//
// It screens the rows in float32 first and computes the float64 distance (sqDist, the
// decision's own arithmetic) only for the rows the screen cannot exclude. With ẑ the vector
// rounded to float32 and D_r the float32 dot product ẑ·v_r (linalg.MulABt), the estimate
// d̃_r = ‖z‖² + ‖v_r‖² − 2·D_r of the squared distance s_r = sqDist(z, v_r) is within
// B_r = K·(‖z‖ + ‖v_r‖)² of it, K = γ_{n+10} + 10⁻¹², γ_m = m·u/(1 − m·u), u = 2⁻²⁴: the dot
// product's rounding is at most γ_n·Σ|ẑ_t·v_rt| in any order of summation with at most n
// roundings per term (Higham, Accuracy and Stability of Numerical Algorithms, §3.1), rounding z
// adds u·Σ|z_t·v_rt|, Σ|z_t·v_rt| ≤ ‖z‖‖v_r‖ ≤ (‖z‖ + ‖v_r‖)²/2, and 10⁻¹² covers the float64
// roundings of the norms, of d̃_r and of s_r. So s_r ∈ [d̃_r − B_r, d̃_r + B_r]. Let t be the
// second smallest upper end over all rows: two rows have s ≤ t, so the second nearest has
// s ≤ t, and a row whose lower end exceeds t is farther than both, never one of the two nor
// tied with them. The rows left are searched in row order with the exhaustive rule (strictly
// smaller distance wins, ties to the lower row), so the result is the exhaustive one.
// TestTwoNearestAllIsExhaustive checks it against twoNearest, ties and duplicate rows
// included. The vectors are split over the machine's cores; the result does not depend on how.
func twoNearestAll(store *embeddings.Store, z []float64, k int) []nearestPair {
	n, v := store.Dim(), store.Len()
	out := make([]nearestPair, k)
	if k == 0 {
		return out
	}
	if v < 2 {
		for j := range k {
			out[j] = twoNearest(store, z[j*n:(j+1)*n])
		}
		return out
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
	screen := m*u/(1-m*u) + 1e-12
	blocks := (k + twoNearestBlock - 1) / twoNearestBlock
	workers := min(runtime.GOMAXPROCS(0), blocks)
	next := make(chan int, blocks)
	for b := range blocks {
		next <- b
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			z32 := make([]float32, twoNearestBlock*n)
			dots := make([]float32, twoNearestBlock*v)
			lower := make([]float64, v)
			for b := range next {
				lo, hi := b*twoNearestBlock, min((b+1)*twoNearestBlock, k)
				for i, x := range z[lo*n : hi*n] {
					z32[i] = float32(x)
				}
				linalg.MulABt(dots, z32, hi-lo, store.Matrix(), v, n)
				for j := lo; j < hi; j++ {
					zj := z[j*n : (j+1)*n]
					out[j] = screenedTwoNearest(store, zj, dots[(j-lo)*v:(j-lo+1)*v], rowNorm, screen, lower)
				}
			}
		})
	}
	wg.Wait()
	return out
}

// screenedTwoNearest is twoNearest(store, z) from the float32 dot products dots[r] of z with
// every row, the rows' Euclidean norms and the screen's factor K (twoNearestAll); lower is
// scratch of store.Len() values.
func screenedTwoNearest(store *embeddings.Store, z []float64, dots []float32, rowNorm []float64, screen float64, lower []float64) nearestPair {
	zz := 0.0
	for _, x := range z {
		zz += x * x
	}
	zNorm := math.Sqrt(zz)
	// t: the second smallest upper end d̃ + B.
	t1, t2 := math.Inf(1), math.Inf(1)
	for r, d := range dots {
		nr := rowNorm[r]
		est := zz + nr*nr - 2*float64(d)
		s := zNorm + nr
		bound := screen * s * s
		lower[r] = est - bound
		switch up := est + bound; {
		case up < t1:
			t1, t2 = up, t1
		case up < t2:
			t2 = up
		}
	}
	b1, b2, s1, s2 := -1, -1, math.Inf(1), math.Inf(1)
	for r, l := range lower {
		if l > t2 {
			continue
		}
		d := sqDist(z, store.Vector(r))
		switch {
		case d < s1:
			b2, s2, b1, s1 = b1, s1, r, d
		case d < s2:
			b2, s2 = r, d
		}
	}
	return nearestPair{b1, b2, math.Sqrt(s1), math.Sqrt(s2)}
}
