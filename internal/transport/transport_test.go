package transport

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteForceMatch returns the minimum over all n! permutations of Σ cost[i][perm[i]].
func bruteForceMatch(cost []float64, n int) float64 {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	best := math.Inf(1)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			s := 0.0
			for i, j := range perm {
				s += cost[i*n+j]
			}
			best = math.Min(best, s)
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return best
}

func randomCosts(rng *rand.Rand, n int, integer bool) []float64 {
	c := make([]float64, n*n)
	for i := range c {
		if integer {
			c[i] = float64(rng.IntN(4)) // many ties
		} else {
			c[i] = rng.Float64() * 10
		}
	}
	return c
}

func TestMatchAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 7; n++ {
		for trial := 0; trial < 30; trial++ {
			cost := randomCosts(rng, n, trial%2 == 0)
			total, assign := Match(cost, n)
			want := bruteForceMatch(cost, n)
			if math.Abs(total-want) > 1e-9 {
				t.Fatalf("n=%d trial %d: Match total %v, brute force %v", n, trial, total, want)
			}
			seen := make([]bool, n)
			sum := 0.0
			for i, j := range assign {
				if j < 0 || j >= n || seen[j] {
					t.Fatalf("n=%d: assignment %v is not a permutation", n, assign)
				}
				seen[j] = true
				sum += cost[i*n+j]
			}
			if sum != total {
				t.Fatalf("n=%d: total %v but assignment costs %v", n, total, sum)
			}
		}
	}
}

func TestMatchPanicsOnWrongSize(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Match accepted 5 costs for a 2×2 problem")
		}
	}()
	Match(make([]float64, 5), 2)
}

// expandUnits turns integer masses into one node per unit, so that an integral transportation
// problem becomes an assignment problem (its polytope has integral vertices, so the optimum is
// attained by shipping whole units).
func expandUnits(mass []int) []int {
	var nodes []int
	for i, m := range mass {
		for range m {
			nodes = append(nodes, i)
		}
	}
	return nodes
}

func TestDistanceAgainstUnitExpansion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 200; trial++ {
		na, nb := 1+rng.IntN(4), 1+rng.IntN(4)
		total := 1 + rng.IntN(7) // ≤ 7 units: brute force over 7! permutations
		ma, mb := randomComposition(rng, total, na), randomComposition(rng, total, nb)
		cost := make([]float64, na*nb)
		for i := range cost {
			cost[i] = math.Round(rng.Float64()*50) / 10
		}
		ua, ub := expandUnits(ma), expandUnits(mb)
		unitCost := make([]float64, total*total)
		for i, a := range ua {
			for j, b := range ub {
				unitCost[i*total+j] = cost[a*nb+b]
			}
		}
		want := bruteForceMatch(unitCost, total) / float64(total)
		wa, wb := make([]float64, na), make([]float64, nb)
		for i, m := range ma {
			wa[i] = float64(m) / float64(total)
		}
		for j, m := range mb {
			wb[j] = float64(m) / float64(total)
		}
		got, err := Distance(wa, wb, cost)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d: masses %v %v: Distance %v, brute force %v", trial, ma, mb, got, want)
		}
	}
}

// randomComposition splits total units into parts non-negative integers.
func randomComposition(rng *rand.Rand, total, parts int) []int {
	m := make([]int, parts)
	for range total {
		m[rng.IntN(parts)]++
	}
	return m
}

func TestDistanceEqualsMatchForUniformWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 5, 20, 60} {
		cost := randomCosts(rng, n, false)
		w := make([]float64, n)
		for i := range w {
			w[i] = 1 / float64(n)
		}
		got, err := Distance(w, w, cost)
		if err != nil {
			t.Fatal(err)
		}
		total, _ := Match(cost, n)
		if want := total / float64(n); math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("n=%d: Distance %v, Match/n %v", n, got, want)
		}
	}
}

func TestDistanceRejectsBadInput(t *testing.T) {
	for name, c := range map[string]struct{ wa, wb, cost []float64 }{
		"cost size":      {[]float64{1}, []float64{1}, []float64{1, 2}},
		"unequal totals": {[]float64{1}, []float64{0.5}, []float64{1}},
		"negative mass":  {[]float64{2, -1}, []float64{1}, []float64{1, 1}},
		"negative cost":  {[]float64{1}, []float64{1}, []float64{-1}},
		"NaN cost":       {[]float64{1}, []float64{1}, []float64{math.NaN()}},
		"empty":          {nil, nil, nil},
	} {
		if _, err := Distance(c.wa, c.wb, c.cost); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func BenchmarkMatch400(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	cost := randomCosts(rng, 400, false)
	for b.Loop() {
		Match(cost, 400)
	}
}

func BenchmarkDistance200x200(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 200
	cost := randomCosts(rng, n, false)
	wa, wb := make([]float64, n), make([]float64, n)
	for i := range wa {
		wa[i], wb[i] = rng.Float64(), rng.Float64()
	}
	sa, sb := 0.0, 0.0
	for i := range wa {
		sa, sb = sa+wa[i], sb+wb[i]
	}
	for i := range wa {
		wa[i], wb[i] = wa[i]/sa, wb[i]/sb
	}
	for b.Loop() {
		if _, err := Distance(wa, wb, cost); err != nil {
			b.Fatal(err)
		}
	}
}
