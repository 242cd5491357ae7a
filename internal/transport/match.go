// Package transport solves the two optimal-transport problems of dptext exactly: the minimum-cost
// perfect matching of two equal-size bags (the Earth Mover's distance of Fernandes et al., where
// every word has mass 1/N) and optimal transport between two discrete distributions (the Word
// Mover's distance of Kusner et al., used as a semantic-similarity score).
package transport

import (
	"fmt"
)

// Match returns a minimum-cost perfect matching of an n×n assignment problem: assign[i] is the
// column matched to row i and total = Σ_i cost[i·n+assign[i]]. cost is row-major and must hold
// finite values; Match panics if len(cost) ≠ n·n. Ties between optimal matchings are broken
// deterministically (the same input always gives the same matching).
//
// The algorithm is the shortest-augmenting-path method of Jonker and Volgenant (1987) with
// column potentials v (a row's potential is implicit: its least reduced cost):
//   - column reduction: v[j] = min_i cost[i][j], and the row attaining it takes column j if
//     it has no column yet (for the bags of the EMD diagnostics, every word released unchanged
//     is matched here, without a search);
//   - augmentation: every row left free runs a Dijkstra search over reduced costs
//     cost[i][j] − v[j] − u[i] ≥ 0, taking all the columns at the current least distance at
//     once, until it reaches a free column; the potentials of the columns it finished are
//     raised by their distance, keeping every reduced cost non-negative and every matched one
//     zero, and the path is augmented.
//
// It is exact in the same sense as the textbook Hungarian method: with real arithmetic the
// total is the minimum.
func Match(cost []float64, n int) (total float64, assign []int) {
	if len(cost) != n*n {
		panic(fmt.Sprintf("transport.Match: %d costs for a %d×%d problem", len(cost), n, n))
	}
	if n == 0 {
		return 0, []int{}
	}
	rowCol := make([]int, n) // column of row i, −1 when free
	colRow := make([]int, n) // row of column j, −1 when free
	v := make([]float64, n)
	for i := range rowCol {
		rowCol[i], colRow[i] = -1, -1
	}
	for j := n - 1; j >= 0; j-- {
		best, bi := cost[j], 0
		for i := 1; i < n; i++ {
			if c := cost[i*n+j]; c < best {
				best, bi = c, i
			}
		}
		v[j] = best
		if rowCol[bi] < 0 {
			rowCol[bi], colRow[j] = j, bi
		}
	}
	dist := make([]float64, n)
	pred := make([]int, n)
	cols := make([]int, n) // cols[:low] finished, cols[low:up] at the least distance, cols[up:] to do
	for free := range n {
		if rowCol[free] >= 0 {
			continue
		}
		row := cost[free*n : (free+1)*n]
		for j := range n {
			dist[j], pred[j], cols[j] = row[j]-v[j], free, j
		}
		low, up, ready, end := 0, 0, 0, -1
		least := 0.0
		for end < 0 {
			if up == low {
				// Gather the columns at the least distance among those to do.
				ready = low
				least = dist[cols[up]]
				up++
				for k := up; k < n; k++ {
					j := cols[k]
					if h := dist[j]; h <= least {
						if h < least {
							up, least = low, h
						}
						cols[k], cols[up] = cols[up], j
						up++
					}
				}
				for _, j := range cols[low:up] {
					if colRow[j] < 0 {
						end = j
						break
					}
				}
				if end >= 0 {
					break
				}
			}
			// Finish a column at the least distance: relax the columns to do through its row.
			j1 := cols[low]
			low++
			i := colRow[j1]
			ci := cost[i*n : (i+1)*n]
			u := ci[j1] - v[j1] - least
			// The hottest loop: with every slice cut to n and one test of j (cols is a
			// permutation of 0…n−1, so it never fails), the compiler drops the four bounds
			// checks of each step.
			ci, v, dist, pred, colRow, cols := ci[:n:n], v[:n:n], dist[:n:n], pred[:n:n], colRow[:n:n], cols[:n:n]
			for k := up; k < n; k++ {
				j := uint(cols[k])
				if j >= uint(n) {
					panic("transport.Match: a column outside 0…n−1 in its list")
				}
				if h := ci[j] - v[j] - u; h < dist[j] {
					pred[j] = i
					if h == least {
						if colRow[j] < 0 {
							end = int(j)
							break
						}
						cols[k], cols[up] = cols[up], int(j)
						up++
					}
					dist[j] = h
				}
			}
		}
		for _, j := range cols[:ready] {
			v[j] += dist[j] - least
		}
		for {
			i := pred[end]
			colRow[end] = i
			end, rowCol[i] = rowCol[i], end
			if i == free {
				break
			}
		}
	}
	for i, j := range rowCol {
		total += cost[i*n+j]
	}
	return total, rowCol
}
