package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"dptext/embeddings"
	"dptext/mechanisms"
	"dptext/rngs"
)

// The decoding check (exact, no randomness in its verdict). The noise tests (noise.go) prove a
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
func decodeFinding(t *Target, seed uint64, idx int, x string, partners []string, k int) (Finding, map[string]int, error) {
	f := Finding{Level: "decoding", Kind: "release against an exact re-decoding", X: []string{x}, Units: 1,
		Bound: math.NaN(), PValue: math.NaN(), Ceiling: math.Inf(1), Exact: true, Method: "own nearest-word search"}
	nd, ok := t.Noise.(mechanisms.NearestDecoder)
	if !ok {
		f.Rejected = true
		f.Output = "the mechanism does not state its decoding (mechanisms.NearestDecoder): its release cannot be shown to read only the tested noise"
		return f, nil, nil
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
			return f, nil, fmt.Errorf("audit: decoding of %q: %w", x, err)
		}
		if len(v) != n {
			return f, nil, fmt.Errorf("audit: decoding of %q: a noisy vector of %d values in a vocabulary of dimension %d", x, len(v), n)
		}
		z = append(z, v...)
	}
	out, err := t.Release(releaseGens, docs)
	if err == nil && len(out) != k {
		err = fmt.Errorf("%d outputs for %d documents", len(out), k)
	}
	if err != nil {
		return f, nil, fmt.Errorf("audit: decoding of %q: release: %w", x, err)
	}
	released := make([]int, k)
	counts := map[string]int{}
	for j := range k {
		if len(out[j]) != 1 {
			f.Rejected = true
			f.Output = fmt.Sprintf("draw %d released %d words for the one-word document", j, len(out[j]))
			return f, counts, nil
		}
		w := out[j][0]
		counts[w]++
		r, ok := store.Lookup(w)
		if !ok {
			f.Rejected = true
			f.Output = fmt.Sprintf("draw %d released %q, not a word of the decoding vocabulary", j, w)
			return f, counts, nil
		}
		released[j] = r
	}
	cands := decodeCandidateRows(store, x, partners, counts)
	for j := range k {
		zj := z[j*n : (j+1)*n]
		exhaustive := j < decodeExhaustive
		rows := cands
		if exhaustive {
			rows = nil // every row
		}
		if nearer := nearerRows(store, zj, released[j], rows, choices); nearer >= 0 {
			best := nearestRow(store, zj)
			f.Rejected = true
			f.Output = fmt.Sprintf("draw %d: released %q (distance %.6g to its noisy vector), but %q is nearer (%.6g) and an exhaustive search decodes %q (%.6g); the release is not among the %d nearest words, so it reads more than the noisy vector",
				j, store.Word(released[j]), math.Sqrt(sqDist(zj, store.Vector(released[j]))), store.Word(nearer), math.Sqrt(sqDist(zj, store.Vector(nearer))),
				store.Word(best), math.Sqrt(sqDist(zj, store.Vector(best))), choices)
			return f, counts, nil
		}
	}
	f.Output = fmt.Sprintf("%d draws released through the release path, each among the %d nearest words of its noisy vector: all against %d candidate words, the first %d by exhaustive search over %d words",
		k, choices, len(cands), min(k, decodeExhaustive), store.Len())
	return f, counts, nil
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
