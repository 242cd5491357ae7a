package expmech

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/internal/linalg"
)

func TestCusTextSetsPartitionByNearestUnassigned(t *testing.T) {
	store := samplingStore(t)
	sets := CusTextSets(store, 6)
	seen := map[int]bool{}
	for i, s := range sets {
		if len(s) != 6 && i != len(sets)-1 {
			t.Fatalf("set %d has %d words, want 6 (only the last may be smaller)", i, len(s))
		}
		for _, r := range s {
			if seen[r] {
				t.Fatalf("row %d in two sets", r)
			}
			seen[r] = true
		}
	}
	if len(seen) != store.Len() {
		t.Fatalf("%d rows covered, want %d", len(seen), store.Len())
	}
	// The first set is row 0 and its 5 nearest rows.
	d0 := linalg.Euclidean(store.Vector(0), store.Vector(sets[0][5]))
	for r := range store.Len() {
		in := false
		for _, x := range sets[0] {
			in = in || x == r
		}
		if !in && linalg.Euclidean(store.Vector(0), store.Vector(r)) < d0 {
			t.Fatalf("row %d is nearer to row 0 than the set's farthest word but not in the set", r)
		}
	}
}

func TestCusTextSamplerAndClaim(t *testing.T) {
	store := samplingStore(t)
	mk := func(eps float64) *CusText {
		m, err := NewCusText(store, eps, CusTextOptions{K: 8, OOV: SampleOOVUniform}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := mk(3)
	checkSampler(t, m, mk(6), store, "w05")
	checkClaim(t, m, store)
	// The word itself has the top utility 1, so it is more likely than under the uniform draw.
	lp, _ := m.LogProbabilities("w05")
	id, _ := store.Lookup("w05")
	if !(lp[id] > math.Log(1.0/8)) {
		t.Fatalf("P(w05 | w05) = %v, want above uniform 1/8", math.Exp(lp[id]))
	}
}

func TestCusTextPlusKeepsStopwords(t *testing.T) {
	store := fixtures.NormalStore(t, rand.New(rand.NewPCG(1, 1)), []string{"the", "of", "apple", "pear", "plum", "fig"}, 3, 1)
	m, err := NewCusText(store, 0.1, CusTextOptions{Plus: true, K: 3, OOV: SampleOOVUniform}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := m.Apply(rand.New(rand.NewPCG(2, 2)), []string{"the", "of", "the", "of"})
	for i, w := range out {
		if w != []string{"the", "of", "the", "of"}[i] {
			t.Fatalf("custext+ changed a stopword: %v", out)
		}
	}
	if d := m.PairDistance([]string{"the"}, []string{"of"}); !math.IsInf(d, 1) {
		t.Fatalf("distance between two released stopwords = %v, want +Inf", d)
	}
	if _, ok := m.LogProbabilities("the"); ok {
		t.Fatal("a released stopword has no exponential-mechanism distribution")
	}
}

// sortedCusTextSets is CusTextSets written plainly: every unassigned row's distance, all
// sorted by (distance, row), the first K taken.
func sortedCusTextSets(store *embeddings.Store, k int) [][]int {
	n := store.Len()
	assigned := make([]bool, n)
	var sets [][]int
	for x := range n {
		if assigned[x] {
			continue
		}
		type cand struct {
			row int
			d   float64
		}
		var cands []cand
		for r := range n {
			if !assigned[r] {
				cands = append(cands, cand{r, linalg.Euclidean(store.Vector(x), store.Vector(r))})
			}
		}
		sort.Slice(cands, func(i, j int) bool {
			if cands[i].d != cands[j].d {
				return cands[i].d < cands[j].d
			}
			return cands[i].row < cands[j].row
		})
		var set []int
		for _, c := range cands[:min(k, len(cands))] {
			set = append(set, c.row)
			assigned[c.row] = true
		}
		sets = append(sets, set)
	}
	return sets
}

// The kept-K selection of CusTextSets gives the sets of the plain sort, row for row, on a grid
// (many equal distances: the ties must go in row order) and on random vectors, for K that
// divides the vocabulary and K that does not. Mutant: a row entering ahead of equally far
// ones (sort.Search for ≥ instead of >) — the grid's sets differ.
func TestCusTextSetsEqualThePlainSort(t *testing.T) {
	for _, store := range []*embeddings.Store{fixtures.Grid(t, 9), samplingStore(t)} {
		for _, k := range []int{1, 4, 6, 9} {
			if got, want := CusTextSets(store, k), sortedCusTextSets(store, k); !reflect.DeepEqual(got, want) {
				t.Errorf("%d words, K = %d: sets differ from the plain sort", store.Len(), k)
			}
		}
	}
}

// CusTextSets against the plain sort (sortedCusTextSets) on a 20,000 × 100 vocabulary, K = 20.
func BenchmarkCusTextSets20k(b *testing.B) {
	store := expMechGoldenStore(b, 20000, 100)
	for _, c := range []struct {
		name string
		sets func(*embeddings.Store, int) [][]int
	}{{"kept-K", CusTextSets}, {"plain-sort", sortedCusTextSets}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.sets(store, 20)
			}
		})
	}
}
