package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/internal/text"
	"dptext/mechanisms"
)

// CusTextOptions configure NewCusText.
type CusTextOptions struct {
	// Plus selects CusText+ (set by the registry entry "custext+", not from TOML).
	Plus bool `toml:"-"`
	// K is the size of each customised output set; default 20 (the paper's and its code's).
	K int `toml:"k"`
	// OOV is the policy for tokens without a vector: "uniform" (default) or "keep".
	OOV string `toml:"oov"`
}

// DefaultCusTextOptions returns K = 20, unknown tokens replaced uniformly.
func DefaultCusTextOptions() CusTextOptions { return CusTextOptions{K: 20, OOV: SampleOOVUniform} }

// CusText is the customised text sanitisation mechanism (Chen, Yang, Yang, Wang, Li, Wu,
// "A Customized Text Sanitization Mechanism with Differential Privacy", Findings of ACL 2023,
// Sect. 3). Its mapping step partitions the vocabulary into customised output sets: going
// through the words by decreasing frequency, an unassigned word x takes its K nearest unassigned
// words (itself included) as one set S, and every word of S gets S as its output set (the
// "conservative" mapping of the authors' code; the last set may be smaller). Its sampling step
// replaces x ∈ S by y ∈ S by the exponential mechanism over the normalised similarity
//
//	u(x, y) = 1 − (d(x, y) − min_{y′∈S} d(x, y′)) / (max_{y′∈S} d(x, y′) − min_{y′∈S} d(x, y′)) ∈ [0, 1],
//	P(y | x) = exp(ε·u(x, y)/2) / Σ_{y′∈S} exp(ε·u(x, y′)/2)   (Δu = 1),
//
// d the Euclidean distance of the raw vectors (the paper's similarity for GloVe; u = 1 for every
// y when all distances tie, and a set of one word releases it).
//
// Privacy unit: one word. Any two words of one set have the same output set and utilities in
// [0, 1], so the ratio of any output is at most exp(ε): pure ε-DP per word between words of the
// same set (the paper's Theorem 1, its customised notion of neighbouring inputs). Words of
// different sets have disjoint output sets and are not protected from each other. Positions are
// independent and in place, so documents of equal length whose words differ at k positions, each
// within its set, are (ε·k)-indistinguishable (at most ε·l); PairDistance counts those positions
// and is +Inf when any differs across sets (metric "custext-sets").
//
// CusText+ (Sect. 3.3) releases stopwords (the text package's list) unchanged: they get no
// protection, and PairDistance is +Inf where the documents differ in one.
//
// Choices: "frequency" is the store's rank order (public corpus frequency), not counts of the
// private corpus as in the authors' code, so the sets do not depend on the data they protect;
// ties in distance go to the lower row. Building the sets costs |V|²/K distance evaluations once.
type CusText struct {
	store   *embeddings.Store
	epsilon float64
	opts    CusTextOptions
	set     []int       // set index of every row
	sets    [][]int     // the rows of every set, in the order they were taken
	cum     [][]float64 // cumulative output weights of every row over its set
}

// CusTextSets returns the customised output sets of the store's words for K (see CusText):
// sets[i] lists rows, and every row is in exactly one set. Each set is the first unassigned row
// and the K − 1 unassigned rows nearest to it (with it, the K unassigned rows of smallest
// (distance, row)), in that order; only the K best of a pass are kept sorted, not every
// candidate.
func CusTextSets(store *embeddings.Store, k int) [][]int {
	n := store.Len()
	assigned := make([]bool, n)
	var sets [][]int
	rows, dists := make([]int, 0, k), make([]float64, 0, k)
	for x := range n {
		if assigned[x] {
			continue
		}
		rows, dists = rows[:0], dists[:0]
		v := store.Vector(x)
		// Rows come in ascending order, so a row enters only ahead of strictly farther ones:
		// ties stay in row order.
		for r := range n {
			if assigned[r] {
				continue
			}
			d := linalg.Euclidean(v, store.Vector(r))
			if len(rows) == k && d >= dists[k-1] {
				continue
			}
			p := sort.Search(len(dists), func(i int) bool { return dists[i] > d })
			if len(rows) < k {
				rows, dists = append(rows, 0), append(dists, 0)
			}
			copy(rows[p+1:], rows[p:len(rows)-1])
			copy(dists[p+1:], dists[p:len(dists)-1])
			rows[p], dists[p] = r, d
		}
		set := slices.Clone(rows)
		for _, r := range set {
			assigned[r] = true
		}
		sets = append(sets, set)
	}
	return sets
}

// NewCusText builds CusText (opts.Plus false) or CusText+ over the store's words with budget ε
// per word. sets may be nil (computed here) or the result of CusTextSets(store, opts.K), so that
// one partition serves every ε.
func NewCusText(store *embeddings.Store, epsilon float64, opts CusTextOptions, sets [][]int) (*CusText, error) {
	name := "custext"
	if opts.Plus {
		name = "custext+"
	}
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("%s: empty vocabulary: want an embedding store with at least one word", name)
	}
	if err := mechanisms.ExponentialEpsilonRange.Check(epsilon); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if opts.K < 1 || opts.K > store.Len() {
		return nil, fmt.Errorf("%s: k = %d: want 1 to %d (the vocabulary size)", name, opts.K, store.Len())
	}
	if err := checkSampleOOV(name, opts.OOV); err != nil {
		return nil, err
	}
	if sets == nil {
		sets = CusTextSets(store, opts.K)
	}
	m := &CusText{store: store, epsilon: epsilon, opts: opts, sets: sets, set: make([]int, store.Len()), cum: make([][]float64, store.Len())}
	for i := range m.set {
		m.set[i] = -1
	}
	for s, rows := range sets {
		for _, r := range rows {
			if r < 0 || r >= store.Len() || m.set[r] >= 0 {
				return nil, fmt.Errorf("%s: the output sets are not a partition of the %d rows (row %d)", name, store.Len(), r)
			}
			m.set[r] = s
		}
	}
	for r, s := range m.set {
		if s < 0 {
			return nil, fmt.Errorf("%s: row %d (%q) is in no output set", name, r, store.Word(r))
		}
		m.cum[r] = mechanisms.ExponentialCumulative(m.utilities(r), epsilon/2)
	}
	return m, nil
}

// utilities returns u(x, y) for every y of x's set, in set order.
func (m *CusText) utilities(x int) []float64 {
	set := m.sets[m.set[x]]
	u := make([]float64, len(set))
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, y := range set {
		u[j] = linalg.Euclidean(m.store.Vector(x), m.store.Vector(y))
		lo, hi = math.Min(lo, u[j]), math.Max(hi, u[j])
	}
	for j := range u {
		if hi > lo {
			u[j] = 1 - (u[j]-lo)/(hi-lo)
		} else {
			u[j] = 1
		}
	}
	return u
}

// skips says the token is released unchanged by CusText+.
func (m *CusText) skips(w string) bool { return m.opts.Plus && text.IsStopword(w) }

// Apply returns one word per token of doc, in place.
func (m *CusText) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	for i, w := range doc {
		id, ok := m.store.Lookup(w)
		switch {
		case m.skips(w):
			out[i] = w
		case ok:
			out[i] = m.store.Word(m.sets[m.set[id]][mechanisms.SampleCumulative(rng, m.cum[id])])
		case m.opts.OOV == SampleOOVKeep:
			out[i] = w
		default:
			out[i] = m.store.Word(rng.IntN(m.store.Len()))
		}
	}
	return out
}

// Guarantee is ε per word within the customised sets, Epsilon = ε·l (metric "custext-sets"; see
// PairDistance for the bound between two given documents).
func (m *CusText) Guarantee(doc []string) mechanisms.Guarantee {
	return mechanisms.Guarantee{Kind: mechanisms.KindMetric, Epsilon: m.epsilon * float64(len(doc)), Metric: mechanisms.MetricCustomisedSets}
}

// PairDistance is the number of positions where x and y differ, each within one output set;
// +Inf if any differs across sets, in a skipped stopword, or in length (see PairBounder).
func (m *CusText) PairDistance(x, y []string) float64 {
	if len(x) != len(y) {
		return math.Inf(1)
	}
	for i := range x {
		if x[i] != y[i] && (m.skips(x[i]) || m.skips(y[i])) {
			return math.Inf(1)
		}
	}
	return positionalDistance(m.store, m.opts.OOV, x, y, func(a, b int) float64 {
		switch {
		case a == b:
			return 0
		case m.set[a] == m.set[b]:
			return 1
		}
		return math.Inf(1)
	})
}

// UnprotectedReason says why x and y have no finite bound ("" when they have one): a position
// whose words lie in different customised sets (a word's output is always in its own set, so
// the sets tell such words apart with certainty), a stopword CusText+ releases unchanged, an
// unknown word or a length mismatch.
func (m *CusText) UnprotectedReason(x, y []string) string {
	if len(x) == len(y) {
		for i := range x {
			if x[i] != y[i] && (m.skips(x[i]) || m.skips(y[i])) {
				return fmt.Sprintf("position %d (%q vs %q): custext+ releases stopwords unchanged", i+1, x[i], y[i])
			}
		}
	}
	return positionalReason(m.store, m.opts.OOV, x, y, func(a, b int) string {
		if a == b || m.set[a] == m.set[b] {
			return ""
		}
		return "the words are in different customised sets: custext releases a word only within its own set, so pairs across sets get no protection"
	})
}

// PairDistanceKey identifies the store, K, the variant and the OOV policy.
func (m *CusText) PairDistanceKey() string {
	return fmt.Sprintf("custext/%p/%d/%t/%s", m.store, m.opts.K, m.opts.Plus, m.opts.OOV)
}

// Epsilon is the per-word ε.
func (m *CusText) Epsilon() float64 { return m.epsilon }

// IndependentPositions is true: every position's output depends on its own word only.
func (m *CusText) IndependentPositions() bool { return true }

// PositionWise is true: every position is released from its own word, with draws of its own,
// in place (mechanisms.PositionWise).
func (m *CusText) PositionWise() bool { return true }

// LogProbabilities returns ln P(y | word) over the store's rows (−Inf outside word's set); false
// for a token released unchanged (a CusText+ stopword, or an unknown word under oov = "keep").
func (m *CusText) LogProbabilities(word string) ([]float64, bool) {
	id, ok := m.store.Lookup(word)
	out := make([]float64, m.store.Len())
	switch {
	case m.skips(word) || (!ok && m.opts.OOV == SampleOOVKeep):
		return nil, false
	case !ok:
		for r := range out {
			out[r] = -math.Log(float64(len(out)))
		}
		return out, true
	}
	// −Inf everywhere, by doubling copies (memmove): the audit asks for every word's row, and a
	// store per entry was most of its time for CusText.
	out[0] = math.Inf(-1)
	for filled := 1; filled < len(out); filled *= 2 {
		copy(out[filled:], out[:filled])
	}
	lp := mechanisms.ExponentialLogProbabilities(m.utilities(id), m.epsilon/2)
	for j, y := range m.sets[m.set[id]] {
		out[y] = lp[j]
	}
	return out, true
}

// ProtectedSets lists the customised output sets as words (every word in exactly one): the
// pairs the per-word claim ε covers are exactly the pairs of words of one set (for CusText+,
// of words that are not stopwords), so an audit can compute the claim's loss over all of them.
func (m *CusText) ProtectedSets() [][]string {
	out := make([][]string, len(m.sets))
	for i, rows := range m.sets {
		for _, r := range rows {
			out[i] = append(out[i], m.store.Word(r))
		}
	}
	return out
}

// Diagnose reports "unchanged_share" and "oov_tokens".
func (m *CusText) Diagnose(original, private []string) map[string]float64 {
	return unchangedShare(m.store, original, private)
}
