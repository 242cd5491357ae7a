package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
)

// SanTextOptions configure NewSanText.
type SanTextOptions struct {
	// Plus selects SanText+ (set by the registry entry "santext+", not from TOML).
	Plus bool `toml:"-"`
	// SensitiveShare is w of SanText+: the share of the vocabulary, least frequent first (the
	// store's rank order), treated as sensitive; (0, 1]. SanText uses w = 1.
	SensitiveShare float64 `toml:"sensitive_share"`
	// P is p of SanText+: the probability that a non-sensitive word is sanitised; [0, 1].
	P float64 `toml:"p"`
	// OOV is the policy for tokens without a vector: "uniform" (default) or "keep".
	OOV string `toml:"oov"`
	// CacheRows bounds how many per-word cumulative rows (8 bytes × outputs each) are kept.
	CacheRows int `toml:"cache_rows"`
}

// DefaultSanTextOptions returns SanText (every word sensitive), unknown tokens replaced uniformly.
func DefaultSanTextOptions() SanTextOptions {
	return SanTextOptions{SensitiveShare: 1, P: 1, OOV: SampleOOVUniform, CacheRows: 256}
}

// DefaultSanTextPlusOptions returns SanText+ with the paper's defaults w = 0.9, p = 0.3 (Yue et
// al. 2021, Sect. 6; the authors' script defaults to w = 0.5, p = 0.2).
func DefaultSanTextPlusOptions() SanTextOptions {
	return SanTextOptions{Plus: true, SensitiveShare: 0.9, P: 0.3, OOV: SampleOOVUniform, CacheRows: 256}
}

// SanText replaces every token, in place, by a vocabulary word drawn by the exponential
// mechanism with the negated Euclidean distance of the raw word vectors as utility (Yue, Du,
// Wang, Li, Sun, Chow, "Differential Privacy for Text Analytics via Natural Text Sanitization",
// Findings of ACL 2021, Sect. 4.2):
//
//	P(y | x) = exp(−(ε/2)·d(x, y)) / Σ_{y′∈V} exp(−(ε/2)·d(x, y′)).
//
// Privacy unit: one word. For any x, x′ and output y the ratio is at most exp(ε·d(x, x′)) (the
// numerator moves by exp(ε/2·d) by the triangle inequality, and so does the normaliser): ε·d_euc
// metric local DP per word (the paper's Theorem 1). Positions are independent and kept in place,
// so a document satisfies the positional bound ε·Σᵢ d(xᵢ, x′ᵢ) between documents of equal length
// (metric "positional"); PairDistance gives Σᵢ d(xᵢ, x′ᵢ).
//
// SanText+ (Sect. 4.3) splits the vocabulary: the share w of least frequent words is sensitive
// (V_S), the rest not (V_N), and every output is drawn from V_S only,
//
//	P(y | x) = exp(−(ε/2)·d(x, y)) / Σ_{y′∈V_S} exp(−(ε/2)·d(x, y′)),   y ∈ V_S;
//
// a sensitive word is always sanitised, a non-sensitive one with probability p and otherwise
// released unchanged. The paper's notion is utility-optimised metric LDP: an output in V_N
// reveals its input, and only sensitive inputs are protected. Between two sensitive words the
// ratio is at most exp(ε·d(x, x′)); between a sensitive and a non-sensitive word it is at most
// exp(ε·d)/p on V_S and unbounded on V_N. PairDistance is therefore Σᵢ d(xᵢ, x′ᵢ) where the
// documents differ only in sensitive words, +Inf otherwise (metric "positional-sensitive").
//
// Choices the paper leaves open: frequency is the store's rank order (the embedding's public
// corpus frequency), not counts of the private corpus, so the split does not depend on the data
// it protects (the authors' code counts the task's own corpus); the sensitive set is the
// ⌊w·|V|⌋ least frequent rows (at least one). Cost: a word's row is one pass over the
// vocabulary, cached per word (CacheRows); no |V|² matrix is formed.
type SanText struct {
	store     *embeddings.Store
	epsilon   float64
	opts      SanTextOptions
	sensitive int // rows ≥ sensitive are in V_S
	em        *distanceEM
}

// NewSanText builds SanText (opts.Plus false) or SanText+ over the store's words with budget ε
// per word.
func NewSanText(store *embeddings.Store, epsilon float64, opts SanTextOptions) (*SanText, error) {
	name := "santext"
	if opts.Plus {
		name = "santext+"
	}
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("%s: empty vocabulary: want an embedding store with at least one word", name)
	}
	if err := mechanisms.ExponentialEpsilonRange.Check(epsilon); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !(opts.SensitiveShare > 0 && opts.SensitiveShare <= 1) {
		return nil, fmt.Errorf("%s: sensitive_share = %g: want a value in (0, 1]", name, opts.SensitiveShare)
	}
	if !(opts.P >= 0 && opts.P <= 1) {
		return nil, fmt.Errorf("%s: p = %g: want a value in [0, 1]", name, opts.P)
	}
	if !opts.Plus && (opts.SensitiveShare != 1 || opts.P != 1) {
		return nil, fmt.Errorf("santext: sensitive_share = %g, p = %g: these are parameters of santext+ (santext sanitises every word: 1 and 1)", opts.SensitiveShare, opts.P)
	}
	if err := checkSampleOOV(name, opts.OOV); err != nil {
		return nil, err
	}
	n := store.Len()
	count := max(int(math.Floor(opts.SensitiveShare*float64(n))), 1)
	s := &SanText{store: store, epsilon: epsilon, opts: opts, sensitive: n - count}
	var outputs []int
	if s.sensitive > 0 {
		outputs = make([]int, count)
		for i := range outputs {
			outputs[i] = s.sensitive + i
		}
	}
	em, err := newDistanceEM(store, epsilon, math.Inf(1), outputs, opts.CacheRows)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.em = em
	return s, nil
}

// Apply returns one word per token of doc, in place.
func (s *SanText) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	// Sensitive words are always sampled: their rows are prepared a window at a time; a
	// non-sensitive word's row is computed only when its coin says so.
	always := func(i int) (int, bool) {
		id, ok := s.store.Lookup(doc[i])
		return id, ok && id >= s.sensitive
	}
	s.em.applyWindows(len(doc), always, func(lo, hi int, rows map[int][]float64) {
		for i := lo; i < hi; i++ {
			w := doc[i]
			id, ok := s.store.Lookup(w)
			switch {
			case !ok && s.opts.OOV == SampleOOVKeep:
				out[i] = w
			case !ok:
				out[i] = s.store.Word(s.em.row(rng.IntN(s.em.size())))
			case id < s.sensitive && rng.Float64() >= s.opts.P:
				out[i] = w // a non-sensitive word kept with probability 1 − p
			default:
				out[i] = s.store.Word(s.em.sampleWith(rng, id, rows))
			}
		}
	})
	return out
}

// Guarantee is the positional metric bound ε·Σᵢ d(xᵢ, x′ᵢ), reported as Epsilon = ε·l with the
// metric "positional" (SanText) or "positional-sensitive" (SanText+); see PairDistance.
func (s *SanText) Guarantee(doc []string) mechanisms.Guarantee {
	metric := mechanisms.MetricPositional
	if s.opts.Plus {
		metric = mechanisms.MetricSensitivePositional
	}
	return mechanisms.Guarantee{Kind: mechanisms.KindMetric, Epsilon: s.epsilon * float64(len(doc)), Metric: metric}
}

// PairDistance is D(x, y) of the guarantee (see PairBounder and SanText).
func (s *SanText) PairDistance(x, y []string) float64 {
	return positionalDistance(s.store, s.opts.OOV, x, y, func(a, b int) float64 {
		switch {
		case a == b:
			return 0
		case a < s.sensitive || b < s.sensitive:
			return math.Inf(1)
		}
		return linalg.Euclidean(s.store.Vector(a), s.store.Vector(b))
	})
}

// UnprotectedReason says why x and y have no finite bound ("" when they have one): under
// SanText+ a changed position with a non-sensitive word (released unchanged with probability
// 1 − p, so unprotected), an unknown word or a length mismatch.
func (s *SanText) UnprotectedReason(x, y []string) string {
	return positionalReason(s.store, s.opts.OOV, x, y, func(a, b int) string {
		if a == b || (a >= s.sensitive && b >= s.sensitive) {
			return ""
		}
		return "santext+ releases non-sensitive words unchanged with probability 1 − p: they are unprotected"
	})
}

// PairDistanceKey identifies the store, the split and the OOV policy.
func (s *SanText) PairDistanceKey() string {
	return fmt.Sprintf("santext/%p/%d/%s", s.store, s.sensitive, s.opts.OOV)
}

// Epsilon is the per-word ε.
func (s *SanText) Epsilon() float64 { return s.epsilon }

// IndependentPositions is true: every position's output depends on its own word only.
func (s *SanText) IndependentPositions() bool { return true }

// PositionWise is true: every position is released from its own word, with draws of its own,
// in place (mechanisms.PositionWise).
func (s *SanText) PositionWise() bool { return true }

// LogProbabilities returns ln P(y | word) over the store's rows (−Inf outside the output set);
// false for an unknown word under oov = "keep".
func (s *SanText) LogProbabilities(word string) ([]float64, bool) {
	id, ok := s.store.Lookup(word)
	if !ok {
		if s.opts.OOV == SampleOOVKeep {
			return nil, false
		}
		out := make([]float64, s.store.Len())
		for r := range out {
			out[r] = math.Inf(-1)
		}
		for j := range s.em.size() {
			out[s.em.row(j)] = -math.Log(float64(s.em.size()))
		}
		return out, true
	}
	lp := s.em.logProbabilities(id)
	if id < s.sensitive {
		lnP := math.Log(s.opts.P)
		for r := range lp {
			lp[r] += lnP
		}
		lp[id] = math.Log1p(-s.opts.P) // id ∉ V_S: only the kept word reaches it
	}
	return lp, true
}

// Diagnose reports "unchanged_share" and "oov_tokens".
func (s *SanText) Diagnose(original, private []string) map[string]float64 {
	return unchangedShare(s.store, original, private)
}
