package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
)

// TEMOptions configure NewTEM.
type TEMOptions struct {
	// Beta is β of the threshold γ = (2/ε)·ln((1−β)·|V|/β), in (0, 1); default 0.001.
	Beta float64 `toml:"beta"`
	// Gamma sets γ directly (> 0) instead of deriving it from β; 0: derive it.
	Gamma float64 `toml:"gamma"`
	// OOV is the policy for tokens without a vector: "uniform" (default) or "keep".
	OOV string `toml:"oov"`
	// CacheRows bounds how many per-word cumulative rows (8 bytes × |V| each) are kept.
	CacheRows int `toml:"cache_rows"`
}

// DefaultTEMOptions returns β = 0.001, γ derived from it, unknown tokens replaced uniformly.
func DefaultTEMOptions() TEMOptions {
	return TEMOptions{Beta: 0.001, OOV: SampleOOVUniform, CacheRows: 256}
}

// TEM is the truncated exponential mechanism (Carvalho, Vasiloudis, Feyisetan, Wang, "TEM: High
// Utility Metric Differential Privacy on Text", SDM 2023, Sect. 4, Algorithm 1). For an input
// word x with utility f(x, y) = −d(x, y) (Euclidean distance of the raw vectors):
//
//  1. the truncation set L_x = {y ∈ V : d(x, y) ≤ γ};
//  2. every y ∈ L_x gets the score −d(x, y) + G_y, and an extra element ⊥ gets
//     −γ + (2/ε)·ln|V \ L_x| + G_⊥, all G independent Gumbel(0, 2/ε);
//  3. the highest score wins; if it is ⊥, the output is drawn uniformly from V \ L_x.
//
// By the Gumbel-max identity, step 2 picks y ∈ L_x with probability ∝ exp(−(ε/2)·d(x, y)) and ⊥
// with probability ∝ |V \ L_x|·exp(−(ε/2)·γ), so every word outside L_x ends up with
// exp(−(ε/2)·γ): the whole mechanism is the exponential mechanism on the truncated distance,
//
//	P(y | x) = exp(−(ε/2)·min(d(x, y), γ)) / Σ_{y′∈V} exp(−(ε/2)·min(d(x, y′), γ)),
//
// and Apply samples this distribution exactly, by inverse CDF over one pass of the vocabulary per
// distinct word (cached), never a |V|² matrix. (The MLDP benchmark code gives ⊥ the offset
// (2/ε)·ln(|V|/|L_x|) instead of ln|V \ L_x|; this follows the paper.)
//
// Privacy unit: one word; |min(d(x,y),γ) − min(d(x′,y),γ)| ≤ d(x, x′), so the ratio of any output
// is at most exp(ε·d(x, x′)): ε·d_euc metric DP per word (the paper's Theorem 1). Positions are
// independent and in place: the document bound is ε·Σᵢ d(xᵢ, x′ᵢ) (metric "positional").
//
// γ: the paper chooses γ so that the output lies in L_x with probability at least 1 − β, i.e.
// γ = (2/ε)·ln((1−β)·|V|/β) (then |V|·exp(−εγ/2) ≤ β/(1−β) and the weight of x itself is 1);
// β = 0.001 as in the MLDP benchmark code. γ larger than the vocabulary's diameter makes TEM
// SanText's mechanism.
type TEM struct {
	store   *embeddings.Store
	epsilon float64
	gamma   float64
	opts    TEMOptions
	em      *distanceEM
}

// NewTEM builds TEM over the store's words with budget ε per word.
func NewTEM(store *embeddings.Store, epsilon float64, opts TEMOptions) (*TEM, error) {
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("tem: empty vocabulary: want an embedding store with at least one word")
	}
	if err := mechanisms.ExponentialEpsilonRange.Check(epsilon); err != nil {
		return nil, fmt.Errorf("tem: %w", err)
	}
	if err := checkSampleOOV("tem", opts.OOV); err != nil {
		return nil, err
	}
	gamma := opts.Gamma
	switch {
	case opts.Gamma < 0 || math.IsNaN(opts.Gamma) || math.IsInf(opts.Gamma, 0):
		return nil, fmt.Errorf("tem: gamma = %g: want a finite value > 0, or 0 to derive it from beta", opts.Gamma)
	case opts.Gamma == 0:
		if !(opts.Beta > 0 && opts.Beta < 1) {
			return nil, fmt.Errorf("tem: beta = %g: want a value in (0, 1)", opts.Beta)
		}
		gamma = 2 / epsilon * math.Log((1-opts.Beta)*float64(store.Len())/opts.Beta)
		if !(gamma > 0) {
			return nil, fmt.Errorf("tem: beta = %g gives γ = %g ≤ 0 for %d words: want beta < |V|/(|V|+1)", opts.Beta, gamma, store.Len())
		}
	}
	em, err := newDistanceEM(store, epsilon, gamma, nil, opts.CacheRows)
	if err != nil {
		return nil, fmt.Errorf("tem: %w", err)
	}
	return &TEM{store: store, epsilon: epsilon, gamma: gamma, opts: opts, em: em}, nil
}

// Gamma is the truncation threshold γ in use.
func (m *TEM) Gamma() float64 { return m.gamma }

// Apply returns one word per token of doc, in place.
func (m *TEM) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	known := func(i int) (int, bool) { return m.store.Lookup(doc[i]) }
	m.em.applyWindows(len(doc), known, func(lo, hi int, rows map[int][]float64) {
		for i := lo; i < hi; i++ {
			w := doc[i]
			id, ok := m.store.Lookup(w)
			switch {
			case ok:
				out[i] = m.store.Word(m.em.sampleWith(rng, id, rows))
			case m.opts.OOV == SampleOOVKeep:
				out[i] = w
			default:
				out[i] = m.store.Word(rng.IntN(m.store.Len()))
			}
		}
	})
	return out
}

// Guarantee is the positional metric bound ε·Σᵢ d(xᵢ, x′ᵢ), reported as Epsilon = ε·l with the
// metric "positional"; Bounds "gamma" gives γ.
func (m *TEM) Guarantee(doc []string) mechanisms.Guarantee {
	return mechanisms.Guarantee{Kind: mechanisms.KindMetric, Epsilon: m.epsilon * float64(len(doc)), Metric: mechanisms.MetricPositional,
		Bounds: map[string]float64{"gamma": m.gamma}}
}

// PairDistance is Σᵢ d(xᵢ, yᵢ) (see PairBounder).
func (m *TEM) PairDistance(x, y []string) float64 {
	return positionalDistance(m.store, m.opts.OOV, x, y, func(a, b int) float64 {
		return linalg.Euclidean(m.store.Vector(a), m.store.Vector(b))
	})
}

// PairDistanceKey identifies the store and the OOV policy.
func (m *TEM) PairDistanceKey() string { return fmt.Sprintf("tem/%p/%s", m.store, m.opts.OOV) }

// Epsilon is the per-word ε.
func (m *TEM) Epsilon() float64 { return m.epsilon }

// IndependentPositions is true: every position's output depends on its own word only.
func (m *TEM) IndependentPositions() bool { return true }

// PositionWise is true: every position is released from its own word, with draws of its own,
// in place (mechanisms.PositionWise).
func (m *TEM) PositionWise() bool { return true }

// LogProbabilities returns ln P(y | word) over the store's rows; false for an unknown word under
// oov = "keep".
func (m *TEM) LogProbabilities(word string) ([]float64, bool) {
	id, ok := m.store.Lookup(word)
	if !ok {
		if m.opts.OOV == SampleOOVKeep {
			return nil, false
		}
		out := make([]float64, m.store.Len())
		for r := range out {
			out[r] = -math.Log(float64(len(out)))
		}
		return out, true
	}
	return m.em.logProbabilities(id), true
}

// Diagnose reports "unchanged_share" and "oov_tokens".
func (m *TEM) Diagnose(original, private []string) map[string]float64 {
	return unchangedShare(m.store, original, private)
}
