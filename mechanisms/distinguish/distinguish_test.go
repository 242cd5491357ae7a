package distinguish

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/internal/rngs"
	"dptext/internal/stats"
)

// perWord releases every document word by word with f, document i drawing from the stream
// rngs.New(1, name/i).
func perWord(name string, f func(rng *rand.Rand, w string) string) Release {
	return func(docs [][]string) ([][]string, error) {
		out := make([][]string, len(docs))
		for i, d := range docs {
			rng := rngs.New(1, fmt.Sprintf("%s/%d", name, i))
			out[i] = make([]string, len(d))
			for j, w := range d {
				out[i][j] = f(rng, w)
			}
		}
		return out, nil
	}
}

// flip is randomized response over the two words {a<t>, b<t>} of a word's type t: the word is
// kept with probability e^ε/(1 + e^ε), ε = eps[t], else the other word of its type is
// released. It is ε-DP for one word; for documents differing in k words, kε-DP, and the best
// test at k = 1 has balanced accuracy exactly e^ε/(1 + e^ε).
func flip(name string, eps map[byte]float64) Release {
	return perWord(name, func(rng *rand.Rand, w string) string {
		e := eps[w[1]]
		if rng.Float64() < math.Exp(e)/(1+math.Exp(e)) {
			return w
		}
		if w[0] == 'a' {
			return "b" + w[1:]
		}
		return "a" + w[1:]
	})
}

// binaryPairs draws n pairs of n-word documents over {a<t>, b<t>}, the type t of pair i being
// types[i % len(types)], each pair its own cluster.
func binaryPairs(n, words int, types []byte, rng *rand.Rand) []Pair {
	pairs := make([]Pair, n)
	for i := range pairs {
		t := string(types[i%len(types)])
		x, o := make([]string, words), make([]string, words)
		for j := range x {
			x[j] = string("ab"[rng.IntN(2)]) + t
			o[j] = string("ab"[rng.IntN(2)]) + t
		}
		o[0] = map[byte]string{'a': "b", 'b': "a"}[x[0][0]] + t // at least one differing position
		p, err := NewPair(x, o, i, rng)
		if err != nil {
			panic(err)
		}
		pairs[i] = p
	}
	return pairs
}

// TestBoundsCoverKnownLoss simulates randomized response of known ε and counts how often the
// one-sided 95% bounds miss the truth.
//
// Homogeneous: every word ε = 1, pairs at k = 1, the positional distinguisher only, whose
// accuracy is exactly e/(1 + e): the ε lower bound exceeds the true document-level ε = 1 exactly
// when the accuracy bound exceeds it. Heterogeneous: half the pairs have ε = 0.3, half ε = 2.5,
// with many releases per pair, so the spread between pairs dominates; the truth is the mean
// accuracy over the two types. Each bound may miss at most 9% of 300 simulations (stated rate
// 5%; at a true rate of 5% the count exceeds 27 with probability about 0.1%).
//
// Both run uncoupled and coupled (Options.PositionWise: x′ released as x's release with the
// differing positions redrawn): the coupling must keep every bound's coverage. Mutant (run by
// hand): a coupling that takes x's release for x′ without redrawing the differing positions
// puts every accuracy at 1/2, and the upper bounds then miss the truth in every simulation.
//
// Mutant: the Clopper–Pearson bound of the pooled trials alone (releases taken as independent
// of their pair) misses the heterogeneous truth in far more than 9% of the simulations (about a
// quarter), and the test checks that it does.
func TestBoundsCoverKnownLoss(t *testing.T) {
	const sims, limit = 300, 0.09
	o := Options{Pairs: 40, Words: 20, Releases: 40, Distances: []int{1}, Distinguishers: []string{Positional}, Alpha: 0.05, Replicates: 1000}
	p := func(e float64) float64 { return math.Exp(e) / (1 + math.Exp(e)) }
	for _, c := range []struct {
		name  string
		types []byte
		eps   map[byte]float64
		truth float64
	}{
		{"homogeneous", []byte{'0'}, map[byte]float64{'0': 1}, p(1)},
		{"heterogeneous", []byte{'0', '1'}, map[byte]float64{'0': 0.3, '1': 2.5}, (p(0.3) + p(2.5)) / 2},
	} {
		for _, coupled := range []bool{false, true} {
			o := o
			o.PositionWise = coupled
			name := c.name
			if coupled {
				name += "/coupled"
			}
			t.Run(name, func(t *testing.T) {
				missLow, missHigh, missEps, missPooled := 0, 0, 0, 0
				for s := range sims {
					rng := rngs.New(uint64(s), "pairs")
					// The type of each pair is drawn at random, as pairs are drawn from a population.
					types := make([]byte, o.Pairs)
					for i := range types {
						types[i] = c.types[rng.IntN(len(c.types))]
					}
					pairs := binaryPairs(o.Pairs, o.Words, types, rng)
					res, err := Measure(pairs, flip(fmt.Sprint(s), c.eps), nil, o, uint64(s), "sim")
					if err != nil {
						t.Fatal(err)
					}
					lv := res.Levels[0]
					if lv.AccuracyLow > c.truth {
						missLow++
					}
					if lv.AccuracyHigh < c.truth {
						missHigh++
					}
					if lv.EpsilonLow > math.Log(c.truth/(1-c.truth)) {
						missEps++
					}
					if pooledLower(lv, o.Alpha) > c.truth {
						missPooled++
					}
				}
				t.Logf("%s: of %d simulations, lower bound above the truth %d, upper below %d, ε bound above %d; mutant (pooled Clopper–Pearson) above %d",
					c.name, sims, missLow, missHigh, missEps, missPooled)
				for what, n := range map[string]int{"accuracy lower bound": missLow, "accuracy upper bound": missHigh, "ε lower bound": missEps} {
					if float64(n) > limit*sims {
						t.Errorf("%s misses the truth in %d of %d simulations: want at most %.0f", what, n, sims, limit*sims)
					}
				}
				if c.name == "heterogeneous" && float64(missPooled) <= limit*sims {
					t.Errorf("mutant pooled bound misses in only %d of %d: the test would not catch bounds that ignore the pairs", missPooled, sims)
				}
			})
		}
	}
}

// pooledLower is the mutant bound of TestBoundsCoverKnownLoss.
func pooledLower(lv Level, alpha float64) float64 {
	return stats.ClopperPearsonLower(int(math.Floor(lv.Correct)), lv.Trials, alpha)
}

// TestEpsilonOf checks the conversion at its ends and inverts it.
func TestEpsilonOf(t *testing.T) {
	if EpsilonOf(0.5) != 0 || EpsilonOf(0.3) != 0 || !math.IsInf(EpsilonOf(1), 1) {
		t.Errorf("EpsilonOf(0.5, 0.3, 1) = %v, %v, %v: want 0, 0, +Inf", EpsilonOf(0.5), EpsilonOf(0.3), EpsilonOf(1))
	}
	for _, e := range []float64{0.1, 1, 4} {
		if got := EpsilonOf(math.Exp(e) / (1 + math.Exp(e))); math.Abs(got-e) > 1e-12 {
			t.Errorf("EpsilonOf(e^%v/(1+e^%v)) = %v", e, e, got)
		}
	}
}

// vocab is the toy vocabulary of the known-answer tests: w0 … w49.
func vocab(n int) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = fmt.Sprintf("w%d", i)
	}
	return v
}

// toyPairs draws pairs from 8 authors × 10 documents of uniformly random words.
func toyPairs(t *testing.T, o Options) []Pair {
	rng := rngs.New(1, "toy")
	v := vocab(50)
	var docs [][]string
	var authors []string
	for a := range 8 {
		for range 10 {
			d := make([]string, o.Words)
			for j := range d {
				d[j] = v[rng.IntN(len(v))]
			}
			docs = append(docs, d)
			authors = append(authors, fmt.Sprintf("author%d", a))
		}
	}
	pairs, err := Pairs(docs, authors, o.Pairs, o.Words, rng)
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// keep releases a word unchanged with probability q, else a uniformly drawn word of v (which may
// be the word itself): q = 1 is the identity (none), q = 0 uniform random replacement.
func keep(name string, q float64, v []string) Release {
	return perWord(name, func(rng *rand.Rand, w string) string {
		if rng.Float64() < q {
			return w
		}
		return v[rng.IntN(len(v))]
	})
}

// TestKnownAnswers orders toy mechanisms as the truth does: the identity is the most
// distinguishable at every distance, keeping more words is more distinguishable, and uniform
// random replacement shows no loss (ε lower bound near 0 and a small upper bound at every
// distance: randomOK).
// Mutant: a "random" mechanism whose release leaks its input (returns it unchanged one time in
// two) shows a loss, and the test checks that randomOK refuses it.
func TestKnownAnswers(t *testing.T) {
	o := DefaultOptions()
	o.Pairs, o.Words, o.Releases, o.Distances = 40, 50, 10, []int{1, 5, Whole}
	pairs := toyPairs(t, o)
	v := vocab(50)
	measure := func(r Release, path string) *Result {
		res, err := Measure(pairs, r, nil, o, 7, path)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	none, high, low, random := measure(keep("none", 1, v), "none"), measure(keep("high", 0.6, v), "high"), measure(keep("low", 0.2, v), "low"), measure(keep("random", 0, v), "random")
	for j, k := range o.Distances {
		n, h, l := none.Levels[j], high.Levels[j], low.Levels[j]
		t.Logf("%s: none %.3g [%.3g, %.3g], q=0.6 %.3g [%.3g, %.3g], q=0.2 %.3g [%.3g, %.3g], random %.3g [%.3g, %.3g]", DistanceName(k),
			n.Epsilon, n.EpsilonLow, n.EpsilonHigh, h.Epsilon, h.EpsilonLow, h.EpsilonHigh, l.Epsilon, l.EpsilonLow, l.EpsilonHigh,
			random.Levels[j].Epsilon, random.Levels[j].EpsilonLow, random.Levels[j].EpsilonHigh)
		if !(n.EpsilonLow >= h.EpsilonLow && n.EpsilonLow >= l.EpsilonLow && n.Accuracy == 1) {
			t.Errorf("%s: none's lower bound %.3g (accuracy %.3g) is not the largest (q=0.6 %.3g, q=0.2 %.3g)", DistanceName(k), n.EpsilonLow, n.Accuracy, h.EpsilonLow, l.EpsilonLow)
		}
		if k != Whole && !(h.EpsilonLow > l.EpsilonHigh) {
			t.Errorf("%s: keeping 60%% of the words (lower bound %.3g) is not told apart from keeping 20%% (upper bound %.3g)", DistanceName(k), h.EpsilonLow, l.EpsilonHigh)
		}
	}
	if err := randomOK(random); err != nil {
		t.Error(err)
	}
	leak := perWord("leak", func(rng *rand.Rand, w string) string {
		if rng.IntN(2) == 0 {
			return w
		}
		return v[rng.IntN(len(v))]
	})
	if randomOK(measure(leak, "random")) == nil {
		t.Error("a random mechanism that leaks its input passes the check: the check cannot fail")
	}
}

// randomOK is the known answer of uniform random replacement: no loss at any distance (a lower
// bound of at most 0.1 and an upper bound below 0.5). At the true accuracy 1/2 and 400 scored
// trials per distance (standard error about 0.025), the lower bound exceeds ε = 0.1 (accuracy
// 0.525) with probability about 0.5% per distance, the upper bound 0.5 (accuracy 0.62) with a
// probability below 10⁻⁵.
func randomOK(r *Result) error {
	for _, lv := range r.Levels {
		if lv.EpsilonLow > 0.1 || lv.EpsilonHigh >= 0.5 {
			return fmt.Errorf("%s: random replacement has ε in [%.3g, %.3g]: want a lower bound at most 0.1 and an upper bound below 0.5", DistanceName(lv.Distance), lv.EpsilonLow, lv.EpsilonHigh)
		}
	}
	return nil
}

// TestSameMechanismTwoLabels measures one mechanism under two paths (fresh releases) and wants
// the intervals of every distance to overlap; a mechanism of another strength under the second
// label (the mutant) is told apart at some distance.
func TestSameMechanismTwoLabels(t *testing.T) {
	o := DefaultOptions()
	o.Pairs, o.Words, o.Releases, o.Distances = 40, 50, 10, []int{1, 5, 25}
	pairs := toyPairs(t, o)
	v := vocab(50)
	measure := func(r Release, path string) *Result {
		res, err := Measure(pairs, r, nil, o, 7, path)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, other := measure(keep("a", 0.3, v), "a"), measure(keep("b", 0.3, v), "b"), measure(keep("b", 0.1, v), "b")
	overlap := func(x, y *Result) bool {
		for j := range x.Levels {
			if x.Levels[j].AccuracyLow > y.Levels[j].AccuracyHigh || y.Levels[j].AccuracyLow > x.Levels[j].AccuracyHigh {
				return false
			}
		}
		return true
	}
	if !overlap(a, b) {
		t.Errorf("one mechanism under two labels: intervals do not overlap: %+v vs %+v", a.Levels, b.Levels)
	}
	if overlap(a, other) {
		t.Error("mutant: keeping 30% and 10% of the words give overlapping intervals at every distance")
	}
}

// TestEmbeddingDistinguisher: a mechanism that replaces every word by its neighbour in a ring of
// vectors shares no word with its input, so the surface distinguishers see (almost) nothing; an
// embedding one is chosen and shows a loss.
func TestEmbeddingDistinguisher(t *testing.T) {
	o := DefaultOptions()
	o.Pairs, o.Words, o.Releases, o.Distances = 40, 50, 10, []int{5}
	pairs := toyPairs(t, o)
	v := vocab(50)
	vec := ring(v)
	next := perWord("ring", func(rng *rand.Rand, w string) string {
		i, _ := vec.Lookup(w)
		return v[(i+1+rng.IntN(2))%len(v)]
	})
	res, err := Measure(pairs, next, vec, o, 7, "ring")
	if err != nil {
		t.Fatal(err)
	}
	lv := res.Levels[0]
	t.Logf("chosen %s, selection %v, ε %.3g [%.3g, %.3g]", lv.Chosen, lv.Selection, lv.Epsilon, lv.EpsilonLow, lv.EpsilonHigh)
	if !embeddingNames[lv.Chosen] || lv.EpsilonLow <= 0 {
		t.Errorf("chose %s with ε lower bound %.3g: want an embedding distinguisher with a positive bound", lv.Chosen, lv.EpsilonLow)
	}
	res, err = Measure(pairs, next, nil, o, 7, "ring")
	if err != nil {
		t.Fatal(err)
	}
	if lv := res.Levels[0]; lv.EpsilonLow > 0.3 {
		t.Errorf("without vectors the surface distinguishers show ε ≥ %.3g for a mechanism that keeps no word", lv.EpsilonLow)
	}
}

// ringVectors places word i of v at angle 2πi/len(v) on the unit circle.
type ringVectors struct {
	index map[string]int
	n     int
}

func ring(v []string) ringVectors {
	r := ringVectors{index: map[string]int{}, n: len(v)}
	for i, w := range v {
		r.index[w] = i
	}
	return r
}

func (r ringVectors) Lookup(w string) (int, bool) { i, ok := r.index[w]; return i, ok }
func (r ringVectors) Dim() int                    { return 2 }
func (r ringVectors) Vector(i int) []float32 {
	a := 2 * math.Pi * float64(i) / float64(r.n)
	return []float32{float32(math.Cos(a)), float32(math.Sin(a))}
}

// TestReproducible: the same releases and seed give the same result.
func TestReproducible(t *testing.T) {
	o := DefaultOptions()
	o.Pairs, o.Words, o.Releases, o.Distances = 10, 20, 4, []int{1, Whole}
	pairs := toyPairs(t, o)
	a, err := Measure(pairs, keep("r", 0.5, vocab(50)), nil, o, 3, "p")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Measure(pairs, keep("r", 0.5, vocab(50)), nil, o, 3, "p")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("two measurements differ:\n%v\n%v", a, b)
	}
}

// TestPairsAndNeighbours checks the pairs' construction: x′ at distance k differs from x in
// exactly k positions, each holding the other document's word; the x are spread over the
// authors; partners are by other authors; bad input is named.
func TestPairsAndNeighbours(t *testing.T) {
	o := DefaultOptions()
	o.Pairs, o.Words = 16, 30
	pairs := toyPairs(t, o)
	perCluster := map[int]int{}
	for _, p := range pairs {
		perCluster[p.Cluster]++
		for _, k := range []int{1, 5, 25} {
			n := p.Neighbour(k)
			diff := 0
			for i := range n {
				if n[i] != p.X[i] {
					diff++
					if n[i] != p.Other[i] {
						t.Fatalf("position %d of x′ holds %q, neither x's nor the other document's", i, n[i])
					}
				}
			}
			if diff != min(k, len(p.Order)) {
				t.Errorf("x′ at k = %d differs in %d positions", k, diff)
			}
		}
		if !slices.Equal(p.Neighbour(Whole), p.Other) {
			t.Error("x′ of whole documents is not the other document")
		}
	}
	if len(perCluster) != 8 {
		t.Errorf("16 pairs over 8 authors use %d authors: want every author twice", len(perCluster))
	}
	for c, n := range perCluster {
		if n != 2 {
			t.Errorf("author %d is x of %d pairs: want 2", c, n)
		}
	}
	rng := rngs.New(1, "bad")
	if _, err := Pairs([][]string{{"a"}, {"b"}}, []string{"x", "x"}, 1, 1, rng); err == nil {
		t.Error("pairs from one author: no error")
	}
	if _, err := Pairs([][]string{{"a"}, {"b"}}, []string{"x", "y"}, 1, 2, rng); err == nil {
		t.Error("documents shorter than words: no error")
	}
	if _, err := Pairs([][]string{{"a"}, {"b"}}, []string{"x", "y"}, 3, 1, rng); err == nil {
		t.Error("more pairs than documents: no error")
	}
	for _, bad := range []Options{{Pairs: 1}, {Pairs: 2, Words: 5, Releases: 1}, {Pairs: 2, Words: 5, Releases: 2, Distances: []int{6}, Alpha: 0.05, Replicates: 100},
		{Pairs: 2, Words: 5, Releases: 2, Distances: []int{1}, Alpha: 0.05, Replicates: 100, Distinguishers: []string{"oracle"}}} {
		if bad.Check() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestCoupledReleases checks what the coupling sends and builds: with PositionWise, each x′ at
// k ≠ Whole goes through the mechanism as only its k differing words, and its r-th release
// equals x's r-th release everywhere but at those positions, where it holds the short release
// in order; whole documents and uncoupled games send every document in full. Mutant (run by
// hand): taking x′'s words at the first k positions instead of the pair's Order fails the
// equality.
func TestCoupledReleases(t *testing.T) {
	o := Options{Pairs: 6, Words: 30, Releases: 4, Distances: []int{1, 5, Whole}, Alpha: 0.05, Replicates: 200}
	for _, coupled := range []bool{false, true} {
		o.PositionWise = coupled
		pairs := binaryPairs(o.Pairs, o.Words, []byte{'0'}, rngs.New(3, "pairs"))
		var sent int
		rel := func(docs [][]string) ([][]string, error) {
			for _, d := range docs {
				sent += len(d)
			}
			return flip("c", map[byte]float64{'0': 0.5})(docs)
		}
		variants, out, err := play(pairs, rel, o)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for p, pr := range pairs {
			want += o.Releases * (len(pr.X) + len(pr.Other))
			for j, k := range o.Distances {
				if k == Whole {
					continue
				}
				changed := pr.Order[:min(k, len(pr.Order))]
				if coupled {
					want += o.Releases * len(changed)
				} else {
					want += o.Releases * len(pr.X)
				}
				if !slices.Equal(variants[p][1+j], pr.Neighbour(k)) {
					t.Fatalf("pair %d, k = %d: variant is not the neighbour", p, k)
				}
				if !coupled {
					continue
				}
				for r := range o.Releases {
					x, xp := out[p][0][r], out[p][1+j][r]
					if len(xp) != len(x) {
						t.Fatalf("pair %d, k = %d, release %d: %d words for %d", p, k, r, len(xp), len(x))
					}
					for i := range x {
						if x[i] != xp[i] && !slices.Contains(changed, i) {
							t.Errorf("pair %d, k = %d, release %d: position %d differs from x's release but is not redrawn", p, k, r, i)
						}
					}
				}
			}
		}
		if sent != want {
			t.Errorf("coupled %v: %d words sent to the mechanism, want %d", coupled, sent, want)
		}
	}
}

// TestCoupledLaw checks that coupling keeps each release's law: over 4,000 coupled games of one
// pair at k = 1 under randomized response (keep with probability 0.7), the redrawn position of
// x′ holds x′'s word in a share within 4.5 standard errors of 0.7 (false failure ≈ 7·10⁻⁶), and
// the positions x′ shares with x do too. Mutant (run by hand): no redraw (x's word kept) gives
// share 0.3 at the changed position and fails.
func TestCoupledLaw(t *testing.T) {
	o := Options{Pairs: 2, Words: 10, Releases: 2, Distances: []int{1}, Alpha: 0.05, Replicates: 200, PositionWise: true}
	pairs := binaryPairs(o.Pairs, o.Words, []byte{'0'}, rngs.New(5, "pairs"))
	const games = 4000
	kept, keptShared, shared := 0, 0, 0
	at := pairs[0].Order[0]
	for g := range games {
		_, out, err := play(pairs, flip(fmt.Sprint("law", g), map[byte]float64{'0': math.Log(0.7 / 0.3)}), o)
		if err != nil {
			t.Fatal(err)
		}
		xp := pairs[0].Neighbour(1)
		if out[0][1][0][at] == xp[at] {
			kept++
		}
		for i := range xp {
			if i != at {
				shared++
				if out[0][1][0][i] == xp[i] {
					keptShared++
				}
			}
		}
	}
	for _, c := range []struct {
		what string
		k, n int
	}{{"the redrawn position", kept, games}, {"the shared positions", keptShared, shared}} {
		share := float64(c.k) / float64(c.n)
		if se := math.Sqrt(0.7 * 0.3 / float64(c.n)); math.Abs(share-0.7) > 4.5*se {
			t.Errorf("%s keep x′'s word in %.4f of releases, want 0.7 ± %.4f", c.what, share, 4.5*se)
		}
	}
}

// overlap on word counts equals the multiset overlap counted word by word: each word of a
// takes one of b's remaining copies. Random documents over small vocabularies, so words repeat.
func TestOverlapIsTheMultisetIntersection(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	counts := func(doc []string) map[string]int {
		c := map[string]int{}
		for _, w := range doc {
			c[w]++
		}
		return c
	}
	for trial := range 500 {
		draw := func() []string {
			doc := make([]string, rng.IntN(40))
			for i := range doc {
				doc[i] = string(rune('a' + rng.IntN(1+trial%12)))
			}
			return doc
		}
		a, b := draw(), draw()
		left := counts(b)
		want := 0
		for _, w := range a {
			if left[w] > 0 {
				left[w]--
				want++
			}
		}
		if got := overlap(counts(a), counts(b)); got != want {
			t.Fatalf("overlap(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}
