package metricdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
)

// DefaultMahalanobisLambda is the default λ of the regularised covariance λΣ + (1−λ)I.
const DefaultMahalanobisLambda = 0.5

// MahalanobisOptions configures the Mahalanobis mechanism.
type MahalanobisOptions struct {
	// TopK restricts the vocabulary to the K most frequent words of the store (0: all); the
	// covariance is computed on the same words.
	TopK int `toml:"top_k"`
	// OOV is the out-of-vocabulary policy: "keep", "drop" or "nearest-known" (see EMD).
	OOV string `toml:"oov"`
	// Workers is the number of goroutines decoding one document (0: GOMAXPROCS).
	Workers int `toml:"workers"`
	// Lambda is λ ∈ [0, 1] of Σ′ = λΣ + (1−λ)I: 0 gives CMP's spherical noise, 1 the plain
	// (normalised) covariance.
	Lambda float64 `toml:"lambda"`
}

// DefaultMahalanobisOptions returns the whole store, out-of-vocabulary words kept, all cores,
// λ = DefaultMahalanobisLambda.
func DefaultMahalanobisOptions() MahalanobisOptions {
	return MahalanobisOptions{OOV: OOVKeep, Lambda: DefaultMahalanobisLambda}
}

// Mahalanobis is the regularised Mahalanobis mechanism of Xu, Aggarwal, Feyisetan and Teissier
// (PrivateNLP @ EMNLP 2020, §3, Algorithm 1): each in-vocabulary word with vector x ∈ ℝⁿ is
// replaced, in place, by the vocabulary word nearest in Euclidean distance (exact, ties by
// lowest rank, as CMP decodes) to
//
//	z = x + r·Σ′^{1/2}u,   r ~ Gamma(n, 1/ε),   u uniform on the unit sphere,   Σ′ = λΣ + (1−λ)I,
//
// elliptical noise of density ∝ exp(−ε‖z − x‖_{Σ′⁻¹}) (Σ′^{-1/2}(z − x) = r·u is n-dimensional
// Laplace noise). The privacy unit is the word: two words are ε·‖φ(w) − φ(w′)‖_{Σ′⁻¹}-
// indistinguishable (Thm. 1 of the paper), so a document released in place has the positional
// guarantee exp(ε·Σᵢ ‖xᵢ − x′ᵢ‖_{Σ′⁻¹}) (metric "mahalanobis"). Out-of-vocabulary words follow the
// policy, as for EMD.
//
// Choices where the paper leaves details open: Σ is the covariance (centred, divided by the
// number of words) of the vectors of the decoding vocabulary (top_k), scaled so that its mean
// variance (trace/n) is 1, so that λ mixes matrices of equal trace and the noise's overall scale
// stays that of CMP at the same ε; the square root is the symmetric one (eigendecomposition).
type Mahalanobis struct {
	wordDecoding
	epsilon float64
	opts    MahalanobisOptions
	shape   *ellipse
	perturb perturbation
}

// ellipse holds Σ′^{1/2} and Σ′^{−1/2} (n×n, row-major) of one vocabulary and λ.
type ellipse struct {
	dim           int
	root, invRoot []float64
}

// ellipses caches one ellipse per (vocabulary, λ): the mechanisms of an ε grid share it.
var ellipses struct {
	sync.Mutex
	byKey map[ellipseKey]*ellipse
}

type ellipseKey struct {
	store  *embeddings.Store
	lambda float64
}

// NewMahalanobis returns the Mahalanobis mechanism at ε (in EMDEpsilonRange) over store's
// vocabulary (restricted to its TopK most frequent words when opts.TopK > 0).
func NewMahalanobis(store *embeddings.Store, epsilon float64, opts MahalanobisOptions) (*Mahalanobis, error) {
	if err := EMDEpsilonRange.Check(epsilon); err != nil {
		return nil, fmt.Errorf("mahalanobis: %w", err)
	}
	if !(opts.Lambda >= 0 && opts.Lambda <= 1) {
		return nil, fmt.Errorf("mahalanobis: lambda = %g: want a number in [0, 1]", opts.Lambda)
	}
	w, err := newWordDecoding("mahalanobis", store, opts.TopK, opts.Workers, opts.OOV)
	if err != nil {
		return nil, err
	}
	shape, err := sharedEllipse(w.store, opts.Lambda)
	if err != nil {
		return nil, fmt.Errorf("mahalanobis: %w", err)
	}
	return &Mahalanobis{wordDecoding: w, epsilon: epsilon, opts: opts, shape: shape, perturb: shape.perturbation(epsilon)}, nil
}

// sharedEllipse returns the cached ellipse of (vocab, λ), computing it on first use.
func sharedEllipse(vocab *embeddings.Store, lambda float64) (*ellipse, error) {
	ellipses.Lock()
	defer ellipses.Unlock()
	key := ellipseKey{vocab, lambda}
	if e, ok := ellipses.byKey[key]; ok {
		return e, nil
	}
	e, err := newEllipse(vocab, lambda)
	if err != nil {
		return nil, err
	}
	if ellipses.byKey == nil {
		ellipses.byKey = map[ellipseKey]*ellipse{}
	}
	ellipses.byKey[key] = e
	return e, nil
}

// newEllipse computes Σ′ = λΣ̃ + (1−λ)I, Σ̃ the vocabulary's covariance scaled to mean variance
// 1, and its symmetric square root and inverse square root.
func newEllipse(vocab *embeddings.Store, lambda float64) (*ellipse, error) {
	n, dim := vocab.Len(), vocab.Dim()
	mean := make([]float64, dim)
	for w := range n {
		for t, x := range vocab.Vector(w) {
			mean[t] += float64(x)
		}
	}
	for t := range mean {
		mean[t] /= float64(n)
	}
	cov := make([]float64, dim*dim) // upper triangle
	c := make([]float64, dim)
	for w := range n {
		for t, x := range vocab.Vector(w) {
			c[t] = float64(x) - mean[t]
		}
		for a := range dim {
			ca := c[a]
			row := cov[a*dim:]
			for b := a; b < dim; b++ {
				row[b] += ca * c[b]
			}
		}
	}
	trace := 0.0
	for a := range dim {
		trace += cov[a*dim+a] / float64(n)
	}
	sym := mat.NewSymDense(dim, nil)
	for a := range dim {
		for b := a; b < dim; b++ {
			v := 0.0
			if trace > 0 {
				v = lambda * cov[a*dim+b] / float64(n) * float64(dim) / trace
			}
			if a == b {
				v += 1 - lambda
			}
			sym.SetSym(a, b, v)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, fmt.Errorf("the eigendecomposition of the regularised covariance (lambda = %g) did not converge", lambda)
	}
	values := eig.Values(nil)
	var vectors mat.Dense
	eig.VectorsTo(&vectors)
	maxValue := 0.0
	for _, v := range values {
		maxValue = math.Max(maxValue, v)
	}
	for _, v := range values {
		if !(v > 1e-9*maxValue) {
			return nil, fmt.Errorf("the regularised covariance (lambda = %g) is singular (eigenvalue %g): use lambda < 1", lambda, v)
		}
	}
	e := &ellipse{dim: dim, root: make([]float64, dim*dim), invRoot: make([]float64, dim*dim)}
	for a := range dim {
		for b := range dim {
			r, ir := 0.0, 0.0
			for k, v := range values {
				p := vectors.At(a, k) * vectors.At(b, k)
				r += p * math.Sqrt(v)
				ir += p / math.Sqrt(v)
			}
			e.root[a*dim+b], e.invRoot[a*dim+b] = r, ir
		}
	}
	// Entry (a, b) sums the products V_ak·V_bk, which commute exactly, in the order (b, a)
	// does: both roots are symmetric to the last bit, as linalg.SymMatVec requires.
	return e, nil
}

// perturbation is the elliptical noise z = x + r·Σ′^{1/2}u of parameter ε: the radius and the
// direction are drawn as for EMD (radius first), then the direction is shaped.
func (e *ellipse) perturbation(epsilon float64) perturbation {
	return func(rng *rand.Rand, x []float32, scratch, dst []float64) error {
		radius := LaplaceRadius(rng, len(x), epsilon)
		SphereDirection(rng, scratch)
		linalg.SymMatVec(dst, e.root, scratch)
		for a, v := range x {
			dst[a] = float64(v) + radius*dst[a]
		}
		return checkNoisy(dst)
	}
}

// distance is ‖a − b‖_{Σ′⁻¹} = ‖Σ′^{−1/2}(a − b)‖.
func (e *ellipse) distance(a, b []float32) float64 {
	diff, s := make([]float64, e.dim), make([]float64, e.dim)
	for j := range diff {
		diff[j] = float64(a[j]) - float64(b[j])
	}
	linalg.SymMatVec(s, e.invRoot, diff)
	sq := 0.0
	for _, x := range s {
		sq += x * x
	}
	return math.Sqrt(sq)
}

// Epsilon is the per-word ε.
func (m *Mahalanobis) Epsilon() float64 { return m.epsilon }

// Store is the (top_k-restricted) vocabulary the mechanism draws from.
func (m *Mahalanobis) Store() *embeddings.Store { return m.store }

// Apply privatises doc (see TryApply); it panics only if TryApply fails, which the constructor's
// checks rule out.
func (m *Mahalanobis) Apply(rng *rand.Rand, doc []string) []string {
	return mechanisms.ApplyOrPanic(m, rng, doc)
}

// TryApply privatises doc in place: one draw of noise per privatised token from rng, in
// document order, all decoded as one batch.
func (m *Mahalanobis) TryApply(rng *rand.Rand, doc []string) ([]string, error) {
	out, err := m.TryApplyBatch([]*rand.Rand{rng}, [][]string{doc})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Guarantee is the positional Mahalanobis bound for a document of N words (metric
// "mahalanobis"): exp(ε·Σᵢ ‖xᵢ − x′ᵢ‖_{Σ′⁻¹}) = exp(εN·(1/N)Σᵢ ‖xᵢ − x′ᵢ‖_{Σ′⁻¹}) against any
// document of the same length; see PairDistance for two given documents.
func (m *Mahalanobis) Guarantee(doc []string) mechanisms.Guarantee {
	return mechanisms.Guarantee{Kind: mechanisms.KindMetric, Epsilon: m.epsilon * float64(len(doc)), Metric: mechanisms.MetricMahalanobis}
}

// PairDistance is Σᵢ ‖xᵢ − yᵢ‖_{Σ′⁻¹} over the released positions (the Mahalanobis norm, not the
// Euclidean distance), +Inf when the released lengths differ or an out-of-vocabulary word
// passed through is not matched by the same word at the same position.
func (m *Mahalanobis) PairDistance(x, y []string) float64 {
	return m.positionalDistance(x, y, m.shape.distance)
}

// PairDistanceKey identifies the vocabulary, λ and out-of-vocabulary policy.
func (m *Mahalanobis) PairDistanceKey() string {
	return fmt.Sprintf("mahalanobis/%p/lambda=%g/oov=%s", m.store, m.opts.Lambda, m.opts.OOV)
}

// PassedThrough lists the out-of-vocabulary words of doc the "keep" policy releases unchanged.
func (m *Mahalanobis) PassedThrough(doc []string) []string { return m.passedThrough(doc) }

// Diagnose reports "unchanged_share" (in-vocabulary tokens released as themselves), "oov_tokens"
// and the policy's count, positionally (private must be Apply's output for original).
func (m *Mahalanobis) Diagnose(original, private []string) map[string]float64 {
	return m.diagnoseInPlace(original, private)
}
