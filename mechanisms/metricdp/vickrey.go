package metricdp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
)

// Vickrey noise kinds (option noise).
const (
	// VickreyNoiseLaplace is CMP's n-dimensional Laplace noise.
	VickreyNoiseLaplace = "laplace"
	// VickreyNoiseMahalanobis is the Mahalanobis mechanism's elliptical noise.
	VickreyNoiseMahalanobis = "mahalanobis"
)

// DefaultVickreyT is the default threshold t.
const DefaultVickreyT = 0.5

// VickreyOptions configures the Vickrey mechanism.
type VickreyOptions struct {
	// TopK restricts the vocabulary to the K most frequent words of the store (0: all).
	TopK int `toml:"top_k"`
	// OOV is the out-of-vocabulary policy: "keep", "drop" or "nearest-known" (see EMD).
	OOV string `toml:"oov"`
	// Workers is the number of goroutines decoding one document (0: GOMAXPROCS).
	Workers int `toml:"workers"`
	// Noise is "laplace" (CMP's noise) or "mahalanobis".
	Noise string `toml:"noise"`
	// Lambda is λ of the Mahalanobis noise (ignored for "laplace").
	Lambda float64 `toml:"lambda"`
	// T is the threshold t ∈ [0, 1]: 0 always releases the nearest word (the underlying
	// mechanism), 1 always the second nearest.
	T float64 `toml:"t"`
}

// DefaultVickreyOptions returns Laplace noise, t = DefaultVickreyT, λ = DefaultMahalanobisLambda
// (used with noise "mahalanobis"), the whole store, out-of-vocabulary words kept, all cores.
func DefaultVickreyOptions() VickreyOptions {
	return VickreyOptions{OOV: OOVKeep, Noise: VickreyNoiseLaplace, Lambda: DefaultMahalanobisLambda, T: DefaultVickreyT}
}

// Vickrey is the Vickrey mechanism of Xu, Aggarwal, Feyisetan and Teissier (PrivateNLP @ NAACL
// 2021, §3, Algorithm 1): each in-vocabulary word with vector x gets the noise of CMP (noise
// "laplace") or of the Mahalanobis mechanism (noise "mahalanobis"), z = x + noise; the nearest
// and second-nearest vocabulary words w₁, w₂ of z (Euclidean, exact, ties by lowest rank; see
// nearest.Decoder.Decode2), at distances d₁ ≤ d₂, are found, and the word released in place is
//
//	w₂ with probability p₂ = t·d₁ / (t·d₁ + (1−t)·d₂),   w₁ otherwise,
//
// one uniform draw per word (t·d₁ = 0 releases w₁). So t = 0 is the underlying mechanism, t = ½
// chooses with weights inversely proportional to the distances, and t = 1 always releases the
// second nearest. The choice depends on x only through z, so it is post-processing of the
// noise and the guarantee is the underlying mechanism's, stated in its metric (§3, Thm. 1):
// positional Euclidean (metric "positional") over Laplace noise, positional Mahalanobis
// (metric "mahalanobis") over Mahalanobis noise. The paper selects t per ε empirically; the
// default ½ is this package's choice.
type Vickrey struct {
	wordDecoding
	epsilon float64
	opts    VickreyOptions
	perturb perturbation
	shape   *ellipse // nil for Laplace noise
}

// NewVickrey returns the Vickrey mechanism at ε (in EMDEpsilonRange) over store's vocabulary
// (restricted to its TopK most frequent words when opts.TopK > 0), which needs two words.
func NewVickrey(store *embeddings.Store, epsilon float64, opts VickreyOptions) (*Vickrey, error) {
	if err := EMDEpsilonRange.Check(epsilon); err != nil {
		return nil, fmt.Errorf("vickrey: %w", err)
	}
	if !(opts.T >= 0 && opts.T <= 1) {
		return nil, fmt.Errorf("vickrey: t = %g: want a number in [0, 1]", opts.T)
	}
	w, err := newWordDecoding("vickrey", store, opts.TopK, opts.Workers, opts.OOV)
	if err != nil {
		return nil, err
	}
	if w.store.Len() < 2 {
		return nil, fmt.Errorf("vickrey: the vocabulary has %d word: want at least 2", w.store.Len())
	}
	m := &Vickrey{wordDecoding: w, epsilon: epsilon, opts: opts}
	switch opts.Noise {
	case VickreyNoiseLaplace:
		m.perturb = laplacePerturbation(epsilon)
	case VickreyNoiseMahalanobis:
		if !(opts.Lambda >= 0 && opts.Lambda <= 1) {
			return nil, fmt.Errorf("vickrey: lambda = %g: want a number in [0, 1]", opts.Lambda)
		}
		if m.shape, err = sharedEllipse(w.store, opts.Lambda); err != nil {
			return nil, fmt.Errorf("vickrey: %w", err)
		}
		m.perturb = m.shape.perturbation(epsilon)
	default:
		return nil, fmt.Errorf("vickrey: noise = %q: want %q or %q", opts.Noise, VickreyNoiseLaplace, VickreyNoiseMahalanobis)
	}
	return m, nil
}

// Epsilon is the per-word ε.
func (m *Vickrey) Epsilon() float64 { return m.epsilon }

// Threshold is t, the weight of the nearest word's distance in the choice p₂ (for an audit to
// recompute p₂ from the published rule).
func (m *Vickrey) Threshold() float64 { return m.opts.T }

// Store is the (top_k-restricted) vocabulary the mechanism draws from.
func (m *Vickrey) Store() *embeddings.Store { return m.store }

// Apply privatises doc (see TryApply); it panics only if TryApply fails, which the constructor's
// checks rule out.
func (m *Vickrey) Apply(rng *rand.Rand, doc []string) []string {
	return mechanisms.ApplyOrPanic(m, rng, doc)
}

// TryApply privatises doc in place: one draw of noise per privatised token from rng in document
// order, all decoded to their two nearest words as one batch, then one uniform draw per token,
// in document order, for the choice.
func (m *Vickrey) TryApply(rng *rand.Rand, doc []string) ([]string, error) {
	out, err := m.TryApplyBatch([]*rand.Rand{rng}, [][]string{doc})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// secondProbability is p₂ = t·d₁/(t·d₁ + (1−t)·d₂) for the noisy vector z, d₁ and d₂ its
// Euclidean distances to the rows w1 and w2 (0 when t·d₁ = 0).
func (m *Vickrey) secondProbability(z []float64, w1, w2 int) float64 {
	d1 := math.Sqrt(squaredDistance64(z, m.store.Vector(w1)))
	d2 := math.Sqrt(squaredDistance64(z, m.store.Vector(w2)))
	num := m.opts.T * d1
	if num == 0 {
		return 0
	}
	return num / (num + (1-m.opts.T)*d2)
}

// squaredDistance64 is Σ_t (z_t − v_t)² in float64.
func squaredDistance64(z []float64, v []float32) float64 {
	s := 0.0
	for t, x := range v {
		d := z[t] - float64(x)
		s += d * d
	}
	return s
}

// Guarantee is the underlying noise's positional bound for a document of N words: metric
// "positional" (Euclidean) over Laplace noise, "mahalanobis" over Mahalanobis noise; the budget
// is ε·N in either case.
func (m *Vickrey) Guarantee(doc []string) mechanisms.Guarantee {
	metric := mechanisms.MetricPositional
	if m.shape != nil {
		metric = mechanisms.MetricMahalanobis
	}
	return mechanisms.Guarantee{Kind: mechanisms.KindMetric, Epsilon: m.epsilon * float64(len(doc)), Metric: metric}
}

// PairDistance is the underlying noise's positional distance (Euclidean or Mahalanobis; see
// EMD.PairDistance under order "keep" and Mahalanobis.PairDistance).
func (m *Vickrey) PairDistance(x, y []string) float64 {
	if m.shape != nil {
		return m.positionalDistance(x, y, m.shape.distance)
	}
	return m.positionalDistance(x, y, linalg.Euclidean)
}

// PairDistanceKey identifies the vocabulary, the noise (and λ) and the out-of-vocabulary policy.
func (m *Vickrey) PairDistanceKey() string {
	if m.shape != nil {
		return fmt.Sprintf("mahalanobis/%p/lambda=%g/oov=%s", m.store, m.opts.Lambda, m.opts.OOV)
	}
	return fmt.Sprintf("emd/%p/order=%s/oov=%s", m.store, mechanisms.OrderKeep, m.opts.OOV)
}

// PassedThrough lists the out-of-vocabulary words of doc the "keep" policy releases unchanged.
func (m *Vickrey) PassedThrough(doc []string) []string { return m.passedThrough(doc) }

// Diagnose reports "unchanged_share", "oov_tokens" and the policy's count, positionally
// (private must be Apply's output for original).
func (m *Vickrey) Diagnose(original, private []string) map[string]float64 {
	return m.diagnoseInPlace(original, private)
}
