package transport

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// matchReference is Match as it was before issue 38: the Hungarian method inserting one row at
// a time, each with a Dijkstra search from zero potentials. TestMatchEqualsReference holds Match
// to its totals, and BenchmarkMatchAgainstReference measures Match against it in the same
// process, so that a regression shows as a ratio.
func matchReference(cost []float64, n int) (total float64, assign []int) {
	if len(cost) != n*n {
		panic(fmt.Sprintf("transport.matchReference: %d costs for a %d×%d problem", len(cost), n, n))
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

// bagCosts is an n×n cost matrix shaped like the EMD bag diagnostics' (1 − cosine between the
// words of a snippet and of its release): words repeat as in a text (frequent words often, so
// rows and columns come in groups of equal costs), and a share `changed` of the outputs are
// other words (the rest are the input word itself, cost 0 up to rounding).
func bagCosts(rng *rand.Rand, n int, changed float64) []float64 {
	vecs := wordVectors(rng, 2000, 50)
	in, out := make([]int, n), make([]int, n)
	for i := range in {
		in[i] = min(len(vecs)-1, int(rng.ExpFloat64()*150))
		out[i] = in[i]
		if rng.Float64() < changed {
			out[i] = rng.IntN(len(vecs))
		}
	}
	rng.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return pairCosts(vecs, in, out, func(a, b []float64) float64 {
		dot, na, nb := 0.0, 0.0, 0.0
		for d := range a {
			dot, na, nb = dot+a[d]*b[d], na+a[d]*a[d], nb+b[d]*b[d]
		}
		return 1 - dot/math.Sqrt(na*nb)
	})
}

// snippetCosts is the Euclidean cost matrix between two snippets of n words by different
// authors, drawn from one Zipf-like vocabulary (frequent words in both): the split's bag
// distance between consecutive authors.
func snippetCosts(rng *rand.Rand, n int) []float64 {
	vecs := wordVectors(rng, 2000, 50)
	a, b := make([]int, n), make([]int, n)
	for i := range a {
		a[i] = min(len(vecs)-1, int(rng.ExpFloat64()*300))
		b[i] = min(len(vecs)-1, int(rng.ExpFloat64()*300))
	}
	return pairCosts(vecs, a, b, func(x, y []float64) float64 {
		s := 0.0
		for d := range x {
			s += (x[d] - y[d]) * (x[d] - y[d])
		}
		return math.Sqrt(s)
	})
}

func wordVectors(rng *rand.Rand, words, dim int) [][]float64 {
	vecs := make([][]float64, words)
	for w := range vecs {
		vecs[w] = make([]float64, dim)
		for d := range vecs[w] {
			vecs[w][d] = rng.NormFloat64()
		}
	}
	return vecs
}

func pairCosts(vecs [][]float64, rows, cols []int, f func(a, b []float64) float64) []float64 {
	n := len(rows)
	cost := make([]float64, n*n)
	for i, a := range rows {
		for j, b := range cols {
			cost[i*n+j] = f(vecs[a], vecs[b])
		}
	}
	return cost
}

// Match's total equals the reference's (relative difference at most 1e-12: both are exact, and
// their sums may differ in rounding) on random costs, integer costs full of ties, and the two
// shapes of the EMD code, and its assignment is a permutation whose total it reports. Mutant
// caught: finishing the ready columns without raising their potentials (checked: a total above
// the reference at n = 7).
func TestMatchEqualsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	check := func(name string, cost []float64, n int) {
		t.Helper()
		total, assign := Match(cost, n)
		want, _ := matchReference(cost, n)
		if math.Abs(total-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("%s: Match total %v, reference %v", name, total, want)
		}
		seen, sum := make([]bool, n), 0.0
		for i, j := range assign {
			if j < 0 || j >= n || seen[j] {
				t.Fatalf("%s: assignment %v is not a permutation", name, assign)
			}
			seen[j] = true
			sum += cost[i*n+j]
		}
		if sum != total {
			t.Fatalf("%s: total %v, the assignment sums to %v", name, total, sum)
		}
	}
	for n := 0; n <= 60; n++ {
		for trial := range 6 {
			check(fmt.Sprintf("n=%d trial %d", n, trial), randomCosts(rng, n, trial%2 == 0), n)
		}
	}
	for _, changed := range []float64{0, 0.05, 0.5, 0.95, 1} {
		check(fmt.Sprintf("bag, %.0f%% changed", 100*changed), bagCosts(rng, 300, changed), 300)
	}
	check("snippets", snippetCosts(rng, 300), 300)
}

// BenchmarkMatchAgainstReference times Match and the reference on the EMD code's two shapes at
// 430 words (a snippet of Table 1): bag diagnostics with half and with 95 % of the words changed
// (ε = 10 and 5 on GloVe), and the bag distance between two snippets.
func BenchmarkMatchAgainstReference(b *testing.B) {
	const n = 430
	rng := rand.New(rand.NewPCG(38, 2))
	for _, c := range []struct {
		name string
		cost []float64
	}{{"bag-half-changed", bagCosts(rng, n, 0.5)}, {"bag-most-changed", bagCosts(rng, n, 0.95)}, {"snippets", snippetCosts(rng, n)}} {
		b.Run(c.name+"/new", func(b *testing.B) {
			for b.Loop() {
				Match(c.cost, n)
			}
		})
		b.Run(c.name+"/reference", func(b *testing.B) {
			for b.Loop() {
				matchReference(c.cost, n)
			}
		})
	}
}
