package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
	"dptext/mechanisms/internal/rowcache"
	"dptext/mechanisms/nearest"
)

// TruncatedGumbelOptions configure NewTruncatedGumbel.
type TruncatedGumbelOptions struct {
	// DeltaMin is Δ_min, the smallest distance between two distinct words of the vocabulary;
	// 0: computed exactly from the store.
	DeltaMin float64 `toml:"delta_min"`
	// DeltaMax is Δ_max, the largest distance between two words of the vocabulary (the noise
	// truncation bound); 0: computed exactly from the store.
	DeltaMax float64 `toml:"delta_max"`
	// OOV is the policy for tokens without a vector: "uniform" (default) or "keep".
	OOV string `toml:"oov"`
	// CacheRows bounds how many per-word neighbour lists (2 × 64 values each) are kept.
	CacheRows int `toml:"cache_rows"`
}

// DefaultTruncatedGumbelOptions returns Δ_min and Δ_max computed from the vocabulary and unknown
// tokens replaced uniformly.
func DefaultTruncatedGumbelOptions() TruncatedGumbelOptions {
	return TruncatedGumbelOptions{OOV: SampleOOVUniform, CacheRows: 4096}
}

// gumbelPrefix is how many nearest neighbours are kept per cached word; a draw of k beyond it
// (probability below 1e-25 for |V| ≤ 10⁶) sorts the whole vocabulary for that word.
const gumbelPrefix = 64

// TruncatedGumbel is the truncated Gumbel mechanism of Carvalho, Vasiloudis and Feyisetan
// (2021; "BRR: Preserving Privacy of Text Data Efficiently on Device", arXiv:2107.07923, and
// their FLAIRS 2021 paper). Provenance of the formulas: the full text of the paper was not
// available when this was written; the steps and the calibration below are those of the public
// MLDP benchmark code (Meisenbacher et al. 2024), which states the paper's mechanism, and must
// be checked against the paper's theorem. For an input word x:
//
//  1. draw k ~ Poisson(μ = ln(|V|−1)) conditioned on k ≤ |V|−1;
//  2. take the candidate set C_k(x) of the k words nearest to x (Euclidean distance of the raw
//     vectors in float64, ties to the lower row; x itself, at distance 0, is the first); k = 0
//     releases x;
//  3. release argmin_{y∈C_k(x)} d(x, y) + G_y, the G_y independent Gumbel(0, b) variables
//     conditioned on |G_y| ≤ Δ_max.
//
// The scale comes from ε through the calibration:
//
//	a = (ε − 2·(1 + ln|V|)/Δ_min) / 3,   b = 2·Δ_max / min(W₀(2·a·Δ_max), ln(a·Δ_min)),
//
// W₀ the principal branch of Lambert's W, Δ_min and Δ_max the smallest and largest distances
// between distinct vocabulary words (computed exactly: Δ_min with the exact nearest-word search,
// Δ_max by a farthest-pair search pruned with the triangle inequality around the centroid). The
// formula needs a·Δ_min > 1, i.e. ε > (2·(1 + ln|V|) + 3)/Δ_min; smaller ε is an error naming
// that minimum (TruncatedGumbelMinEpsilon).
//
// Privacy unit: one word. The calibration is made for the claim ε·d_euc(x, x′) per word, but
// that claim does not hold for this construction, and no finite one does: the candidates of x
// are at most its |V|−1 nearest words (x included), so x's farthest word is never released for
// x while any x′ whose farthest word differs releases it with positive probability — the
// log-ratio of that output is infinite — and where the farthest words agree, a word far from x
// is released for x only through the Poisson tail of k, so no bound of the calibration's form
// is proved for those pairs either. So the guarantee is stated as it is: ∞ between documents
// that differ in an in-vocabulary word (PairDistance +Inf, Guarantee.Epsilon +Inf;
// UnprotectedReason says why); ε stays the calibration parameter of the noise scale b.
//
// Choices where the sources are open: μ = ln(|V|−1) and the truncation of k follow the MLDP code;
// the Gumbel truncation is by rejection (exact conditioning); Δ_min, Δ_max are exact over the
// whole vocabulary (the MLDP code estimates them from one random word).
type TruncatedGumbel struct {
	store    *embeddings.Store
	epsilon  float64
	a, b     float64
	deltaMin float64
	deltaMax float64
	mu       float64
	opts     TruncatedGumbelOptions
	cache    *rowcache.Cache
	shared   *DistanceRows // nil: distance rows computed per mechanism
}

// NewTruncatedGumbel builds the truncated Gumbel mechanism over the store's words with budget ε
// per unit of Euclidean distance.
func NewTruncatedGumbel(store *embeddings.Store, epsilon float64, opts TruncatedGumbelOptions) (*TruncatedGumbel, error) {
	if store == nil || store.Len() < 2 {
		return nil, fmt.Errorf("truncated-gumbel: want an embedding store with at least two words")
	}
	if err := checkSampleOOV("truncated-gumbel", opts.OOV); err != nil {
		return nil, err
	}
	if opts.CacheRows < 0 {
		return nil, fmt.Errorf("truncated-gumbel: cache_rows = %d: want ≥ 0 (0 disables the cache)", opts.CacheRows)
	}
	if math.IsNaN(epsilon) || math.IsInf(epsilon, 0) || epsilon <= 0 {
		return nil, fmt.Errorf("truncated-gumbel: ε = %v: want a finite value > 0", epsilon)
	}
	dmin, dmax := opts.DeltaMin, opts.DeltaMax
	for _, v := range []struct {
		key string
		x   float64
	}{{"delta_min", dmin}, {"delta_max", dmax}} {
		if v.x < 0 || math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return nil, fmt.Errorf("truncated-gumbel: %s = %v: want a finite value > 0, or 0 to compute it", v.key, v.x)
		}
	}
	if dmin == 0 || dmax == 0 {
		cmin, cmax, err := sharedDistanceRange(store)
		if err != nil {
			return nil, fmt.Errorf("truncated-gumbel: %w", err)
		}
		if dmin == 0 {
			dmin = cmin
		}
		if dmax == 0 {
			dmax = cmax
		}
	}
	if dmin <= 0 {
		return nil, fmt.Errorf("truncated-gumbel: two vocabulary words share a vector (Δ_min = 0): the calibration needs Δ_min > 0")
	}
	if dmin > dmax {
		return nil, fmt.Errorf("truncated-gumbel: delta_min = %v > delta_max = %v: want Δ_min ≤ Δ_max", dmin, dmax)
	}
	a, b, err := TruncatedGumbelScale(epsilon, store.Len(), dmin, dmax)
	if err != nil {
		return nil, fmt.Errorf("truncated-gumbel: %w", err)
	}
	return &TruncatedGumbel{store: store, epsilon: epsilon, a: a, b: b, deltaMin: dmin, deltaMax: dmax,
		mu: math.Log(float64(store.Len() - 1)), opts: opts, cache: rowcache.New(opts.CacheRows)}, nil
}

// TruncatedGumbelMinEpsilon is the smallest ε the calibration accepts for n words and Δ_min
// (exclusive): (2·(1 + ln n) + 3)/Δ_min.
func TruncatedGumbelMinEpsilon(n int, deltaMin float64) float64 {
	return (2*(1+math.Log(float64(n))) + 3) / deltaMin
}

// TruncatedGumbelScale returns the paper's a and the Gumbel scale b for ε, n words, Δ_min and
// Δ_max (see TruncatedGumbel), or an error when ε is at or below TruncatedGumbelMinEpsilon.
func TruncatedGumbelScale(epsilon float64, n int, deltaMin, deltaMax float64) (a, b float64, err error) {
	a = (epsilon - 2*(1+math.Log(float64(n)))/deltaMin) / 3
	if !(a*deltaMin > 1) {
		return 0, 0, fmt.Errorf("ε = %v: want ε > %v = (2(1+ln|V|)+3)/Δ_min for |V| = %d, Δ_min = %v (the scale needs a·Δ_min > 1)",
			epsilon, TruncatedGumbelMinEpsilon(n, deltaMin), n, deltaMin)
	}
	den := math.Min(lambertW0(2*a*deltaMax), math.Log(a*deltaMin))
	b = 2 * deltaMax / den
	if math.IsNaN(b) || math.IsInf(b, 0) || b <= 0 {
		return 0, 0, fmt.Errorf("delta_max = %v: the Gumbel scale b = 2·Δ_max/min(W₀(2aΔ_max), ln(aΔ_min)) is %v, not a finite value > 0: want a smaller delta_max", deltaMax, b)
	}
	// Each noise draw is a rejection loop that accepts |G| ≤ Δ_max, with probability
	// exp(−e^(−Δ_max/b)) − exp(−e^(Δ_max/b)); below minGumbelAcceptance a cell would not end.
	if p := gumbelAcceptance(deltaMax / b); !(p >= minGumbelAcceptance) {
		return 0, 0, fmt.Errorf("ε = %v, Δ_max = %v: a truncated Gumbel draw would be accepted with probability %.3g (below %g), so sampling would not end: want a larger ε or delta_max", epsilon, deltaMax, p, minGumbelAcceptance)
	}
	return a, b, nil
}

// minGumbelAcceptance is the smallest acceptance probability of the truncated Gumbel draw
// TruncatedGumbelScale allows: at it a draw takes 10⁴ tries on average.
const minGumbelAcceptance = 1e-4

// gumbelAcceptance is P(|G| ≤ t·b) for G ~ Gumbel(0, b): exp(−e^(−t)) − exp(−e^t).
func gumbelAcceptance(t float64) float64 { return math.Exp(-math.Exp(-t)) - math.Exp(-math.Exp(t)) }

// lambertW0 is the principal branch of Lambert's W for x ≥ 0 (w·e^w = x), by Halley's iteration
// to float64 precision.
func lambertW0(x float64) float64 {
	if x == 0 {
		return 0
	}
	w := math.Log1p(x)
	if x > 3 {
		w = math.Log(x) - math.Log(math.Log(x))
	}
	for i := 0; i < 100; i++ {
		ew := math.Exp(w)
		f := w*ew - x
		step := f / (ew*(w+1) - (w+2)*f/(2*w+2))
		w -= step
		if math.Abs(step) <= 1e-15*math.Max(1, math.Abs(w)) {
			break
		}
	}
	return w
}

// distanceRanges caches vocabularyDistanceRange per store (a pure function of the store), so
// that the mechanisms of an ε grid compute it once.
var distanceRanges struct {
	sync.Mutex
	byStore map[*embeddings.Store][2]float64
}

// sharedDistanceRange is vocabularyDistanceRange, computed once per store.
func sharedDistanceRange(store *embeddings.Store) (float64, float64, error) {
	distanceRanges.Lock()
	defer distanceRanges.Unlock()
	if r, ok := distanceRanges.byStore[store]; ok {
		return r[0], r[1], nil
	}
	dmin, dmax, err := vocabularyDistanceRange(store)
	if err != nil {
		return 0, 0, err
	}
	if distanceRanges.byStore == nil {
		distanceRanges.byStore = map[*embeddings.Store][2]float64{}
	}
	distanceRanges.byStore[store] = [2]float64{dmin, dmax}
	return dmin, dmax, nil
}

// vocabularyDistanceRange returns the smallest and largest Euclidean distances between two
// distinct rows of store, in float64, exactly: the smallest from the exact second-nearest-word
// search of every word's own vector, the largest by scanning pairs in decreasing distance from
// the centroid c and stopping once ‖x_i − c‖ + ‖x_j − c‖ cannot beat the best pair.
func vocabularyDistanceRange(store *embeddings.Store) (dmin, dmax float64, err error) {
	n, dim := store.Len(), store.Dim()
	dec, err := nearest.New(store, nearest.Options{Workers: 1})
	if err != nil {
		return 0, 0, err
	}
	queries := make([]float64, n*dim)
	for i := 0; i < n; i++ {
		for t, v := range store.Vector(i) {
			queries[i*dim+t] = float64(v)
		}
	}
	first, second := make([]int, n), make([]int, n)
	dec.Decode2(queries, first, second)
	dmin = math.Inf(1)
	for i := 0; i < n; i++ {
		other := first[i]
		if other == i {
			other = second[i]
		}
		dmin = math.Min(dmin, linalg.Euclidean(store.Vector(i), store.Vector(other)))
	}
	centroid := make([]float64, dim)
	for i := 0; i < n; i++ {
		for t, v := range store.Vector(i) {
			centroid[t] += float64(v)
		}
	}
	for t := range centroid {
		centroid[t] /= float64(n)
	}
	radius := make([]float64, n)
	order := make([]int, n)
	for i := range order {
		order[i] = i
		radius[i] = linalg.Euclidean64(centroid, store.Vector(i))
	}
	sort.SliceStable(order, func(p, q int) bool { return radius[order[p]] > radius[order[q]] })
	// Triangle inequality: d(x_i, x_j) ≤ r_i + r_j, so with the radii in decreasing order both
	// loops stop at the first pair whose bound cannot beat the best distance found; the slack
	// covers the float64 rounding of the radii.
	for _, i := range order {
		if radius[i]+radius[order[0]] < dmax*(1-1e-9) {
			break
		}
		vi := store.Vector(i)
		for _, j := range order {
			if radius[i]+radius[j] < dmax*(1-1e-9) {
				break
			}
			if d := linalg.Euclidean(vi, store.Vector(j)); d > dmax {
				dmax = d
			}
		}
	}
	return dmin, dmax, nil
}

// Scale is the Gumbel scale b in use.
func (m *TruncatedGumbel) Scale() float64 { return m.b }

// DeltaRange returns Δ_min and Δ_max in use.
func (m *TruncatedGumbel) DeltaRange() (float64, float64) { return m.deltaMin, m.deltaMax }

// PoissonMean is μ of the truncated Poisson draw of how many nearest words compete.
func (m *TruncatedGumbel) PoissonMean() float64 { return m.mu }

// OOV is the out-of-vocabulary policy in use.
func (m *TruncatedGumbel) OOV() string { return m.opts.OOV }

// neighbours returns the ordered nearest rows of x and their distances, at least want of them
// (all rows at most), from prepared (see prepare) or the cache, else computed and cached up to
// gumbelPrefix.
func (m *TruncatedGumbel) neighbours(x, want int, prepared map[int][]float64) (rows []int, dists []float64) {
	if c := prepared[x]; c != nil && len(c)/2 >= want {
		return unpackNeighbours(c)
	}
	if c, ok := m.cache.Get(x); ok && (len(c)/2 >= want || len(c)/2 == m.store.Len()) {
		return unpackNeighbours(c)
	}
	v := m.store.Vector(x)
	packed := m.nearestPacked(func(j int) float64 { return linalg.Euclidean(v, m.store.Vector(j)) }, want)
	if len(packed)/2 <= gumbelPrefix {
		m.cache.Put(x, packed)
	}
	return unpackNeighbours(packed)
}

// prepare returns the packed gumbelPrefix nearest rows of every distinct row of xs, from the
// cache or from distance rows — the run's shared ones (ShareDistances) or computed four rows per
// pass over the vocabulary (distanceEM.ratingsBatch); both are bit-identical to
// linalg.Euclidean — and caches them: a pure function of the rows, so it
// changes speed, never output.
func (m *TruncatedGumbel) prepare(xs []int) map[int][]float64 {
	rows, missing := m.cache.Lookup(xs)
	if m.shared != nil {
		for k, d := range m.shared.get(missing) {
			packed := m.nearestPacked(func(j int) float64 { return d[j] }, 0)
			rows[missing[k]] = packed
			m.cache.Put(missing[k], packed)
		}
		return rows
	}
	em := distanceEM{store: m.store, gamma: math.Inf(1)}
	for k, r := range em.ratingsBatch(missing) {
		packed := m.nearestPacked(func(j int) float64 { return -r[j] }, 0)
		rows[missing[k]] = packed
		m.cache.Put(missing[k], packed)
	}
	return rows
}

// ShareDistances makes m read the distance rows of the words it prepares from rows (built on
// the same store; any other store is ignored): the rows SanText and TEM keep hold the very
// distances prepare computes (distancesBatch), so output is unchanged and a run computes each
// word's row once for all of them.
func (m *TruncatedGumbel) ShareDistances(rows *DistanceRows) {
	if rows != nil && rows.store == m.store {
		m.shared = rows
	}
}

// nearestPacked returns the max(want, gumbelPrefix) (at most |V|) rows of smallest dist, ascending,
// ties to the lower row, packed as (row, distance) pairs.
func (m *TruncatedGumbel) nearestPacked(dist func(j int) float64, want int) []float64 {
	n := m.store.Len()
	keep := min(max(want, gumbelPrefix), n)
	// Rows are visited in ascending order and a row enters only ahead of strictly farther ones.
	all := make([]int, 0, keep)
	d := make([]float64, 0, keep)
	for j := 0; j < n; j++ {
		dj := dist(j)
		if len(all) == keep && dj >= d[keep-1] {
			continue
		}
		p := sort.Search(len(d), func(i int) bool { return d[i] > dj })
		if len(all) < keep {
			all, d = append(all, 0), append(d, 0)
		}
		copy(all[p+1:], all[p:len(all)-1])
		copy(d[p+1:], d[p:len(d)-1])
		all[p], d[p] = j, dj
	}
	packed := make([]float64, 2*len(all))
	for i, r := range all {
		packed[2*i], packed[2*i+1] = float64(r), d[i]
	}
	return packed
}

func unpackNeighbours(c []float64) ([]int, []float64) {
	rows, dists := make([]int, len(c)/2), make([]float64, len(c)/2)
	for i := range rows {
		rows[i], dists[i] = int(c[2*i]), c[2*i+1]
	}
	return rows, dists
}

// truncatedPoisson draws k ~ Poisson(mu) conditioned on k ≤ limit, by rejection (Knuth's
// product method for mu ≤ 30, which covers |V| up to e³⁰).
func truncatedPoisson(rng *rand.Rand, mu float64, limit int) int {
	l := math.Exp(-mu)
	for {
		k, p := 0, rng.Float64()
		for p > l {
			k++
			p *= rng.Float64()
		}
		if k <= limit {
			return k
		}
	}
}

// truncatedGumbel draws G ~ Gumbel(0, b) conditioned on |G| ≤ bound, by rejection.
func truncatedGumbel(rng *rand.Rand, b, bound float64) float64 {
	for {
		u := rng.Float64()
		if u == 0 {
			continue
		}
		g := -b * math.Log(-math.Log(u))
		if math.Abs(g) <= bound {
			return g
		}
	}
}

// sampleRow draws the output row for input row x.
func (m *TruncatedGumbel) sampleRow(rng *rand.Rand, x int, prepared map[int][]float64) int {
	return m.pick(x, m.drawNoise(rng, nil), prepared)
}

// drawNoise draws from rng a position's k ~ truncated Poisson(μ) and then its k truncated
// Gumbel noises, appended to noise. The draws do not depend on the word's neighbours, so a batch
// can draw them at the position's turn and pick the row later.
func (m *TruncatedGumbel) drawNoise(rng *rand.Rand, noise []float64) []float64 {
	k := truncatedPoisson(rng, m.mu, m.store.Len()-1)
	for range k {
		noise = append(noise, truncatedGumbel(rng, m.b, m.deltaMax))
	}
	return noise
}

// pick returns the output row for input row x given its noises (one per nearest neighbour
// considered; none: x itself): the neighbour of smallest distance plus noise, ties to the
// nearer.
func (m *TruncatedGumbel) pick(x int, noise []float64, prepared map[int][]float64) int {
	if len(noise) == 0 {
		return x
	}
	rows, dists := m.neighbours(x, len(noise), prepared)
	best, bestScore := x, math.Inf(1)
	for i, g := range noise {
		if s := dists[i] + g; s < bestScore {
			best, bestScore = rows[i], s
		}
	}
	return best
}

// Apply returns one word per token of doc, in place; the neighbour lists of a window of
// positions are prepared together (see prepare).
func (m *TruncatedGumbel) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	for lo := 0; lo < len(doc); lo += applyWindow {
		hi := min(lo+applyWindow, len(doc))
		var ids []int
		for _, w := range doc[lo:hi] {
			if id, ok := m.store.Lookup(w); ok {
				ids = append(ids, id)
			}
		}
		prepared := m.prepare(ids)
		for i := lo; i < hi; i++ {
			w := doc[i]
			id, ok := m.store.Lookup(w)
			switch {
			case ok:
				out[i] = m.store.Word(m.sampleRow(rng, id, prepared))
			case m.opts.OOV == SampleOOVKeep:
				out[i] = w
			default:
				out[i] = m.store.Word(rng.IntN(m.store.Len()))
			}
		}
	}
	return out
}

// ApplyBatch is Apply on every document with its own generator (mechanisms.BatchMechanism):
// each generator is consumed as Apply consumes it — a known word's k and noises (drawNoise) at
// its turn, an unknown word kept or replaced uniformly — and the neighbour list of each distinct
// word is prepared once for the whole batch, applyWindow words at a time, instead of once per
// window of each document whose cache no longer holds it.
func (m *TruncatedGumbel) ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string {
	type pending struct{ doc, pos, x, lo, hi int } // noise[lo:hi] is the position's noise
	out := make([][]string, len(docs))
	var draws []pending
	var noise []float64
	for d, doc := range docs {
		rng := rngs[d]
		out[d] = make([]string, len(doc))
		for i, w := range doc {
			id, ok := m.store.Lookup(w)
			switch {
			case ok:
				lo := len(noise)
				if noise = m.drawNoise(rng, noise); len(noise) == lo {
					out[d][i] = m.store.Word(id) // k = 0: the word itself
					continue
				}
				draws = append(draws, pending{d, i, id, lo, len(noise)})
			case m.opts.OOV == SampleOOVKeep:
				out[d][i] = w
			default:
				out[d][i] = m.store.Word(rng.IntN(m.store.Len()))
			}
		}
	}
	slices.SortStableFunc(draws, func(a, b pending) int { return a.x - b.x })
	for lo := 0; lo < len(draws); {
		var ids []int
		hi := lo
		for hi < len(draws) && (len(ids) < applyWindow || draws[hi].x == ids[len(ids)-1]) {
			if x := draws[hi].x; len(ids) == 0 || x != ids[len(ids)-1] {
				ids = append(ids, x)
			}
			hi++
		}
		prepared := m.prepare(ids)
		for _, p := range draws[lo:hi] {
			out[p.doc][p.pos] = m.store.Word(m.pick(p.x, noise[p.lo:p.hi], prepared))
		}
		lo = hi
	}
	return out
}

// Guarantee is no finite bound (Epsilon +Inf, metric "positional") for a document with an
// in-vocabulary word, 0 otherwise (see TruncatedGumbel); Bounds give the scale b, Δ_min and
// Δ_max of the calibration.
func (m *TruncatedGumbel) Guarantee(doc []string) mechanisms.Guarantee {
	eps := 0.0
	for _, w := range doc {
		if _, ok := m.store.Lookup(w); ok {
			eps = math.Inf(1)
			break
		}
	}
	return mechanisms.Guarantee{Kind: mechanisms.KindMetric, Epsilon: eps, Metric: mechanisms.MetricPositional,
		Bounds: map[string]float64{"gumbel_scale": m.b, "delta_min": m.deltaMin, "delta_max": m.deltaMax}}
}

// PairDistance is 0 for documents that agree at every position (out-of-vocabulary words
// replaced uniformly count as agreeing) and +Inf otherwise: no finite bound holds between two
// different words (see TruncatedGumbel and PairBounder).
func (m *TruncatedGumbel) PairDistance(x, y []string) float64 {
	return positionalDistance(m.store, m.opts.OOV, x, y, func(a, b int) float64 {
		if a == b {
			return 0
		}
		return math.Inf(1)
	})
}

// UnprotectedReason says why x and y have no finite bound ("" when they have one).
func (m *TruncatedGumbel) UnprotectedReason(x, y []string) string {
	return positionalReason(m.store, m.opts.OOV, x, y, func(a, b int) string {
		if a == b {
			return ""
		}
		return "truncated-gumbel has no finite bound between different words: x's candidates are at most its |V|−1 nearest words, so its farthest word is never released for it"
	})
}

// PairDistanceKey identifies the store and the OOV policy.
func (m *TruncatedGumbel) PairDistanceKey() string {
	return fmt.Sprintf("truncated-gumbel/%p/%s", m.store, m.opts.OOV)
}

// Epsilon is the per-unit ε.
func (m *TruncatedGumbel) Epsilon() float64 { return m.epsilon }

// IndependentPositions is true: every position's output depends on its own word only.
func (m *TruncatedGumbel) IndependentPositions() bool { return true }

// PositionWise is true: every position is released from its own word, with draws of its own,
// in place (mechanisms.PositionWise).
func (m *TruncatedGumbel) PositionWise() bool { return true }

// Diagnose reports "unchanged_share" and "oov_tokens".
func (m *TruncatedGumbel) Diagnose(original, private []string) map[string]float64 {
	return unchangedShare(m.store, original, private)
}
