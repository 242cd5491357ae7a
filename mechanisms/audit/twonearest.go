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
// its two nearest words over the whole vocabulary of store. Every distance is the float64 sum
// of squared differences in order of the coordinate (linalg.SqDist4x4, four vectors against
// four rows per call where the CPU has the kernel, the scalar loop elsewhere: the same bits),
// so the result equals twoNearest(store, z_j) for every j. The vectors are split over
// the machine's cores; the result does not depend on how.
func twoNearestAll(store *embeddings.Store, z []float64, k int) []nearestPair {
	n := store.Dim()
	out := make([]nearestPair, k)
	groups := (k + 3) / 4
	workers := min(runtime.GOMAXPROCS(0), max(groups, 1))
	var wg sync.WaitGroup
	next := make(chan int, groups)
	for g := range groups {
		next <- g
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := make([]float64, 4*n)
			for g := range next {
				lo, hi := 4*g, min(4*g+4, k)
				if hi-lo < 4 {
					for j := lo; j < hi; j++ {
						out[j] = twoNearest(store, z[j*n:(j+1)*n])
					}
					continue
				}
				for t := range n {
					for c := range 4 {
						q[4*t+c] = z[(lo+c)*n+t]
					}
				}
				fourNearestPairs(store, z[lo*n:hi*n], q, out[lo:hi])
			}
		}()
	}
	wg.Wait()
	return out
}

// fourNearestPairs fills out[c] with the two nearest words of the four vectors zs (4 rows of
// store.Dim() values; q holds them interleaved by coordinate for linalg.SqDist4x4).
func fourNearestPairs(store *embeddings.Store, zs, q []float64, out []nearestPair) {
	n := store.Dim()
	var b1, b2 [4]int
	var s1, s2 [4]float64
	for c := range 4 {
		b1[c], b2[c], s1[c], s2[c] = -1, -1, math.Inf(1), math.Inf(1)
	}
	offer := func(c, r int, d float64) {
		switch {
		case d < s1[c] || (d == s1[c] && r < b1[c]):
			b2[c], s2[c], b1[c], s1[c] = b1[c], s1[c], r, d
		case d < s2[c] || (d == s2[c] && r < b2[c]):
			b2[c], s2[c] = r, d
		}
	}
	var dst [16]float64
	var rows [4][]float32
	v := store.Len()
	r := 0
	for ; r+4 <= v; r += 4 {
		for i := range 4 {
			rows[i] = store.Vector(r + i)
		}
		if !linalg.SqDist4x4(&dst, q, &rows) {
			for i := range 4 {
				for c := range 4 {
					dst[4*i+c] = sqDist(zs[c*n:(c+1)*n], rows[i])
				}
			}
		}
		for i := range 4 {
			for c := range 4 {
				offer(c, r+i, dst[4*i+c])
			}
		}
	}
	for ; r < v; r++ {
		row := store.Vector(r)
		for c := range 4 {
			offer(c, r, sqDist(zs[c*n:(c+1)*n], row))
		}
	}
	for c := range 4 {
		out[c] = nearestPair{b1[c], b2[c], math.Sqrt(s1[c]), math.Sqrt(s2[c])}
	}
}
