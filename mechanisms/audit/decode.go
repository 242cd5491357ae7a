package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"dptext/embeddings"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// The decoding check (exact, no randomness in its verdict; for Vickrey also a test of its
// choice between the two nearest words, see choiceFindings). The noise tests (noise.go) prove a
// noise-then-decode mechanism's claim only if the released word is a function of the noisy
// vector z alone (post-processing). For each tested input x the audit draws K noisy vectors
// with the mechanism's noise step and, from generators in the same states, K releases of the
// one-word document [x] through the release path (one batch, every document with its own
// generator, as the runner releases), so that release j is the decoding of z_j. It then
// re-decodes every z_j with a search of its own over the decoding vocabulary the mechanism
// states (mechanisms.NearestDecoder): every released word must be among the NearestChoices()
// nearest words of z_j (Euclidean, ties to the lower row). Every draw is checked against a
// candidate set (x, its partners and the words released most often for x: a candidate nearer
// than the release refutes it), and the first decodeExhaustive draws against the whole
// vocabulary. The first release that differs fails, naming the word, the draw and both outputs.
// Also a release path that draws noise differently from the noise step it exposes fails (the
// noise tested would not be the noise released).
//
// The inputs are the noise step's words and then the decodeHubs words released most often in
// their draws: a decoding that treats the input word specially (never releasing it, say) can
// only show where the input is its own nearest word, which is most frequent for these hubs.

// decodeExhaustive is the number of draws per input re-decoded by exhaustive search.
const decodeExhaustive = 100

// decodeCandidates bounds the released words used as candidates for every draw.
const decodeCandidates = 256

// decodeHubs is the number of most often released words whose own decoding is checked too.
const decodeHubs = 3

// decodeFinding checks the decoding of k draws of input x (stream index idx); it returns the
// finding and how often each word was released.
func decodeFinding(t *Target, seed uint64, idx int, x string, partners []string, k int, level float64) (Finding, []Finding, map[string]int, error) {
	f := Finding{Level: "decoding", Kind: "release against an exact re-decoding", X: []string{x}, Units: 1,
		Bound: math.NaN(), PValue: math.NaN(), Ceiling: math.Inf(1), Exact: true, Method: "own nearest-word search"}
	nd, ok := t.Noise.(mechanisms.NearestDecoder)
	if !ok {
		f.Rejected = true
		f.Output = "the mechanism does not state its decoding (mechanisms.NearestDecoder): its release cannot be shown to read only the tested noise"
		return f, nil, nil, nil
	}
	store, choices := nd.DecodeStore(), nd.NearestChoices()
	n := store.Dim()
	noiseGens, releaseGens, docs := make([]*rand.Rand, k), make([]*rand.Rand, k), make([][]string, k)
	for j := range k {
		path := fmt.Sprintf("audit/decode=%d/draw=%d", idx, j)
		noiseGens[j], releaseGens[j], docs[j] = rngs.New(seed, path), rngs.New(seed, path), []string{x}
	}
	z := make([]float64, 0, k*n)
	for j := range k {
		v, err := t.Noise.NoisyVectors(noiseGens[j], x, 1)
		if err != nil {
			return f, nil, nil, fmt.Errorf("audit: decoding of %q: %w", x, err)
		}
		if len(v) != n {
			return f, nil, nil, fmt.Errorf("audit: decoding of %q: a noisy vector of %d values in a vocabulary of dimension %d", x, len(v), n)
		}
		z = append(z, v...)
	}
	out, err := t.Release(releaseGens, docs)
	if err == nil && len(out) != k {
		err = fmt.Errorf("%d outputs for %d documents", len(out), k)
	}
	if err != nil {
		return f, nil, nil, fmt.Errorf("audit: decoding of %q: release: %w", x, err)
	}
	released := make([]int, k)
	counts := map[string]int{}
	for j := range k {
		if len(out[j]) != 1 {
			f.Rejected = true
			f.Output = fmt.Sprintf("draw %d released %d words for the one-word document", j, len(out[j]))
			return f, nil, counts, nil
		}
		w := out[j][0]
		counts[w]++
		r, ok := store.Lookup(w)
		if !ok {
			f.Rejected = true
			f.Output = fmt.Sprintf("draw %d released %q, not a word of the decoding vocabulary", j, w)
			return f, nil, counts, nil
		}
		released[j] = r
	}
	cands := decodeCandidateRows(store, x, partners, counts)
	exhaustive := exhaustiveNearer(store, z, released[:min(k, decodeExhaustive)], choices)
	for j := range k {
		zj := z[j*n : (j+1)*n]
		var nearer int
		if j < len(exhaustive) {
			nearer = exhaustive[j]
		} else {
			nearer = nearerRows(store, zj, released[j], cands, choices)
		}
		if nearer >= 0 {
			best := nearestRow(store, zj)
			f.Rejected = true
			f.Output = fmt.Sprintf("draw %d: released %q (distance %.6g to its noisy vector), but %q is nearer (%.6g) and an exhaustive search decodes %q (%.6g); the release is not among the %d nearest words, so it reads more than the noisy vector",
				j, store.Word(released[j]), math.Sqrt(sqDist(zj, store.Vector(released[j]))), store.Word(nearer), math.Sqrt(sqDist(zj, store.Vector(nearer))),
				store.Word(best), math.Sqrt(sqDist(zj, store.Vector(best))), choices)
			return f, nil, counts, nil
		}
	}
	f.Output = fmt.Sprintf("%d draws released through the release path, each among the %d nearest words of its noisy vector: all against %d candidate words, the first %d by exhaustive search over %d words",
		k, choices, len(cands), min(k, decodeExhaustive), store.Len())
	var choice []Finding
	if tc, ok := t.Noise.(thresholdChooser); ok && choices == 2 {
		xr, _ := store.Lookup(x)
		choice = choiceFindings(store, x, xr, z, released, tc.Threshold(), level)
	}
	return f, choice, counts, nil
}

// A thresholdChooser is a NearestDecoder choosing between the two nearest words by Vickrey's
// rule (Xu et al. 2021, §3, Algorithm 1): the second nearest w₂ with probability
// p₂ = t·d₁/(t·d₁ + (1−t)·d₂), d₁ ≤ d₂ the Euclidean distances of the noisy vector to the nearest
// and second nearest words (p₂ = 0 when t·d₁ = 0). Threshold is t (metricdp.Vickrey).
type thresholdChooser interface {
	Threshold() float64
}

// choiceTests is the number of one-sided tests the choice check of one input counts in
// Report.Tests: two two-sided tests (all draws; draws whose nearest word is the input).
const choiceTests = 4

// choiceTestCount is the number of one-sided choice tests of inputs decoded inputs: choiceTests
// each when t's noise step is a thresholdChooser choosing among 2 words, none otherwise.
func choiceTestCount(t *Target, inputs int) int {
	nd, ok := t.Noise.(mechanisms.NearestDecoder)
	if _, chooser := t.Noise.(thresholdChooser); !ok || !chooser || nd.NearestChoices() != 2 {
		return 0
	}
	return choiceTests * inputs
}

// choiceFindings tests the choice between the two nearest words of a thresholdChooser (the
// decoding check above only requires the release to be one of them). For every draw j the
// audit takes, by its own exhaustive search over the whole decoding vocabulary
// (twoNearestAll), the two nearest words of z_j and computes p₂(z_j) from the published rule; the number S of
// draws released as the second nearest is, for a correct mechanism, Poisson-binomial with
// these p₂ (independent draws). Two tests, each two-sided and exact (the Poisson-binomial
// distribution by recursion over the draws, O(K²)): over all K draws, and over the draws whose
// nearest word is the input itself — where a decoding that reads the input (releasing the
// second nearest whenever the nearest is the input, say) shows. False-failure rate: each tail
// at most level (α/Tests, the test is discrete so conservative), 2·level per test. Power:
// against that mutant the second-nearest count over the n draws whose nearest is the input
// exceeds its mean by Σ(1−p₂) ≥ n(1−t) (p₂ ≤ t as d₁ ≤ d₂), against a standard deviation
// √Σp₂(1−p₂) ≤ √n/2: at t = ½ it fails with probability ≥ 0.97 (normal approximation) once
// √n exceeds the level's upper normal quantile plus 2 (n ≥ 33 at level 10⁻⁴); larger t needs
// about (2(1−t))⁻² times as many draws (25 at t = 0.9). TestVickreyChoice measures it at
// default settings. The search is exhaustive for every draw because these tests are two-sided:
// a restricted search (a candidate set) that misses the true nearest word counts a correct
// release of the second nearest as "nearest" and biases S downward only, a false failure at
// real scale (GloVe's 30,000 words: 1,067 of 3,000 against 1,481 ± 27 expected, where the
// exhaustive count is 1,442; TestVickreyChoiceAtScale). The one-sided decoding check above may
// restrict its search: a missed word there can hide a violation, never invent one.
func choiceFindings(store *embeddings.Store, x string, xr int, z []float64, released []int, thr, level float64) []Finding {
	var all, own []float64
	sAll, sOwn := 0, 0
	pairs := twoNearestAll(store, z, len(released))
	for j, r := range released {
		w1, d1, d2 := pairs[j].w1, pairs[j].d1, pairs[j].d2
		p := 0.0
		if num := thr * d1; num > 0 {
			p = num / (num + (1-thr)*d2)
		}
		second := 0
		if r != w1 {
			second = 1
		}
		all, sAll = append(all, p), sAll+second
		if w1 == xr {
			own, sOwn = append(own, p), sOwn+second
		}
	}
	mk := func(kind string, ps []float64, s int) Finding {
		f := Finding{Level: "decoding", Kind: kind, X: []string{x}, Units: 1, Bound: math.NaN(), Ceiling: math.Inf(1),
			Method: "exact Poisson-binomial, two-sided"}
		lo, hi := poissonBinomialTails(ps, s)
		f.PValue = min(1, 2*min(lo, hi))
		mean, sd := 0.0, 0.0
		for _, p := range ps {
			mean, sd = mean+p, sd+p*(1-p)
		}
		f.Rejected = min(lo, hi) < level
		verdict := "consistent with"
		if f.Rejected {
			verdict = "refutes"
		}
		f.Output = fmt.Sprintf("%d of %d draws released the second nearest word, expected %.4g ± %.3g (Σp₂, √Σp₂(1−p₂)) from the published rule at t = %g: p = %.3g, each tail against %.3g; %s a choice on the noisy vector alone",
			s, len(ps), mean, math.Sqrt(sd), thr, f.PValue, level, verdict)
		return f
	}
	return []Finding{
		mk("choice of the second nearest word, all draws", all, sAll),
		mk("choice of the second nearest word, draws whose nearest word is the input", own, sOwn),
	}
}

// poissonBinomialTails are P(S ≤ s) and P(S ≥ s) for S a sum of independent Bernoulli(ps[i]).
func poissonBinomialTails(ps []float64, s int) (lo, hi float64) {
	pmf := make([]float64, len(ps)+1)
	pmf[0] = 1
	for i, p := range ps {
		for k := i + 1; k >= 1; k-- {
			pmf[k] = pmf[k]*(1-p) + pmf[k-1]*p
		}
		pmf[0] *= 1 - p
	}
	for k, q := range pmf {
		if k <= s {
			lo += q
		}
		if k >= s {
			hi += q
		}
	}
	return min(lo, 1), min(hi, 1)
}

// decodeCandidateRows are the rows every draw of x is checked against: x, its partners and
// the decodeCandidates words released most often (ties by row), in row order.
func decodeCandidateRows(store *embeddings.Store, x string, partners []string, counts map[string]int) []int {
	seen := map[int]bool{}
	for _, w := range append([]string{x}, partners...) {
		if r, ok := store.Lookup(w); ok {
			seen[r] = true
		}
	}
	type rc struct{ row, n int }
	var rel []rc
	for w, c := range counts {
		if r, ok := store.Lookup(w); ok {
			rel = append(rel, rc{r, c})
		}
	}
	sort.Slice(rel, func(i, j int) bool {
		if rel[i].n != rel[j].n {
			return rel[i].n > rel[j].n
		}
		return rel[i].row < rel[j].row
	})
	for _, c := range rel[:min(len(rel), decodeCandidates)] {
		seen[c.row] = true
	}
	rows := make([]int, 0, len(seen))
	for r := range seen {
		rows = append(rows, r)
	}
	sort.Ints(rows)
	return rows
}

// nearerRows returns a row of rows (every row of store when rows is nil) that, with the
// choices−1 others nearest, places the released row outside the choices nearest words of z:
// the nearest row nearer than released when at least choices rows are; −1 otherwise. Nearer:
// by more than 1e-12 relative (rounding in another summation order), or at exactly the same
// distance and a lower row.
func nearerRows(store *embeddings.Store, z []float64, released int, rows []int, choices int) int {
	dr := sqDist(z, store.Vector(released))
	count, best, bestD := 0, -1, math.Inf(1)
	check := func(r int) {
		if r == released {
			return
		}
		d := sqDist(z, store.Vector(r))
		if d < dr*(1-1e-12) || (d == dr && r < released) {
			count++
			if d < bestD {
				best, bestD = r, d
			}
		}
	}
	if rows == nil {
		for r := range store.Len() {
			check(r)
		}
	} else {
		for _, r := range rows {
			check(r)
		}
	}
	if count >= choices {
		return best
	}
	return -1
}

// exhaustiveNearer is nearerRows(store, z_j, released[j], nil, choices) for every j of
// released (z holds the noisy vectors, store.Dim() values each), exactly: a row nearer than
// the release (or as near, and lower) has a squared distance at most the release's, so its
// screenRows interval starts at or below it; the rows whose interval starts above it are
// farther and never counted, and the others are offered in row order with sqDist, as
// nearerRows offers every row.
func exhaustiveNearer(store *embeddings.Store, z []float64, released []int, choices int) []int {
	n := store.Dim()
	out := make([]int, len(released))
	screenRows(store, z, len(released), func(j int, lower, _ []float64) {
		zj := z[j*n : (j+1)*n]
		rel := released[j]
		dr := sqDist(zj, store.Vector(rel))
		count, best, bestD := 0, -1, math.Inf(1)
		for r, l := range lower {
			if l > dr || r == rel {
				continue
			}
			if d := sqDist(zj, store.Vector(r)); d < dr*(1-1e-12) || (d == dr && r < rel) {
				count++
				if d < bestD {
					best, bestD = r, d
				}
			}
		}
		out[j] = -1
		if count >= choices {
			out[j] = best
		}
	})
	return out
}

// nearestRow is the row of store nearest to z (ties to the lower row), by exhaustive search.
func nearestRow(store *embeddings.Store, z []float64) int {
	best, bestD := 0, math.Inf(1)
	for r := range store.Len() {
		if d := sqDist(z, store.Vector(r)); d < bestD {
			best, bestD = r, d
		}
	}
	return best
}

// sqDist is ‖z − v‖² in float64.
func sqDist(z []float64, v []float32) float64 {
	s := 0.0
	for i, a := range v {
		d := z[i] - float64(a)
		s += d * d
	}
	return s
}
