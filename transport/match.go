// Package transport solves the two optimal-transport problems of dptext exactly: the minimum-cost
// perfect matching of two equal-size bags (the Earth Mover's distance of Fernandes et al., where
// every word has mass 1/N) and optimal transport between two discrete distributions (the Word
// Mover's distance of Kusner et al., used as a semantic-similarity score).
package transport

import (
	"fmt"
	"math"
)

// Match returns a minimum-cost perfect matching of an n×n assignment problem: assign[i] is the
// column matched to row i and total = Σ_i cost[i·n+assign[i]]. cost is row-major and must hold
// finite values; Match panics if len(cost) ≠ n·n. Ties between optimal matchings are broken
// deterministically (the same input always gives the same matching).
//
// The algorithm is the shortest-augmenting-path form of the Hungarian method (Kuhn 1955, in the
// O(n³) formulation with dual potentials of Jonker and Volgenant 1987): rows are inserted one at
// a time, and each insertion runs a dense Dijkstra search over reduced costs
// cost[i][j] − u[i] − v[j] ≥ 0 for a cheapest augmenting path, after which the potentials are
// updated so that every reduced cost stays non-negative and every matched one is zero.
func Match(cost []float64, n int) (total float64, assign []int) {
	if len(cost) != n*n {
		panic(fmt.Sprintf("transport.Match: %d costs for a %d×%d problem", len(cost), n, n))
	}
	if n == 0 {
		return 0, []int{}
	}
	// Columns are 1..n; column 0 is a virtual column holding the row being inserted.
	// rowOf[j] is the row matched to column j (0-based row + 1; 0 means free).
	u := make([]float64, n+1)   // row potentials (1-based rows)
	v := make([]float64, n+1)   // column potentials
	rowOf := make([]int, n+1)   // 1-based row matched to column j, 0 = free
	prevCol := make([]int, n+1) // predecessor column on the shortest path tree
	minSlack := make([]float64, n+1)
	used := make([]bool, n+1)
	for row := 1; row <= n; row++ {
		rowOf[0] = row
		col := 0
		for j := range minSlack {
			minSlack[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[col] = true
			i := rowOf[col]
			delta := math.Inf(1)
			next := 0
			ci := cost[(i-1)*n : i*n]
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				if slack := ci[j-1] - u[i] - v[j]; slack < minSlack[j] {
					minSlack[j] = slack
					prevCol[j] = col
				}
				if minSlack[j] < delta {
					delta = minSlack[j]
					next = j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[rowOf[j]] += delta
					v[j] -= delta
				} else {
					minSlack[j] -= delta
				}
			}
			col = next
			if rowOf[col] == 0 {
				break
			}
		}
		// Augment along the path back to the virtual column.
		for col != 0 {
			p := prevCol[col]
			rowOf[col] = rowOf[p]
			col = p
		}
	}
	assign = make([]int, n)
	for j := 1; j <= n; j++ {
		assign[rowOf[j]-1] = j - 1
	}
	for i, j := range assign {
		total += cost[i*n+j]
	}
	return total, assign
}
