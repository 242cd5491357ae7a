package metricdp

import (
	"fmt"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/linalg"
)

// noiseSample draws the noisy vectors of k copies of an in-vocabulary word with perturb,
// through noisyQueries, the code TryApply decodes from.
func (w *wordDecoding) noiseSample(rng *rand.Rand, word string, k int, perturb perturbation) ([]float64, error) {
	if _, ok := w.store.Lookup(word); !ok {
		return nil, fmt.Errorf("word %q is not in the vocabulary", word)
	}
	doc := make([]string, k)
	for i := range doc {
		doc[i] = word
	}
	_, queries, err := w.noisyQueries(rng, doc, perturb)
	return queries, err
}

// WordVector is φ(word) in the decoding vocabulary (false when word is not in it).
func (w *wordDecoding) WordVector(word string) ([]float32, bool) {
	row, ok := w.store.Lookup(word)
	if !ok {
		return nil, false
	}
	return w.store.Vector(row), true
}

// DecodeStore is the vocabulary the noisy vectors are decoded into (mechanisms.NearestDecoder).
func (w *wordDecoding) DecodeStore() *embeddings.Store { return w.store }

// NearestChoices is 1: EMD (and CMP) release the exact nearest word (mechanisms.NearestDecoder).
func (m *EMD) NearestChoices() int { return 1 }

// NearestChoices is 1: the Mahalanobis mechanism releases the exact nearest word
// (mechanisms.NearestDecoder).
func (m *Mahalanobis) NearestChoices() int { return 1 }

// NearestChoices is 2 (the nearest or the second nearest, by a draw on the distances alone), or
// 1 when t = 0 (mechanisms.NearestDecoder).
func (m *Vickrey) NearestChoices() int {
	if m.opts.T == 0 {
		return 1
	}
	return 2
}

// identityWhiten copies v into dst: the whitening of Euclidean noise.
func identityWhiten(dst, v []float64) { copy(dst, v) }

// whiten writes Σ′^{−1/2}·v into dst.
func (e *ellipse) whiten(dst, v []float64) { linalg.SymMatVec(dst, e.invRoot, v) }

// NoisyVectors draws the noisy vectors EMD decodes for k copies of word (see NoiseStep).
func (m *EMD) NoisyVectors(rng *rand.Rand, word string, k int) ([]float64, error) {
	return m.noiseSample(rng, word, k, m.perturb)
}

// Whiten is the identity: EMD's noise and metric are Euclidean.
func (m *EMD) Whiten(dst, v []float64) { identityWhiten(dst, v) }

// NoisyVectors draws the noisy vectors the Mahalanobis mechanism decodes for k copies of word
// (see NoiseStep).
func (m *Mahalanobis) NoisyVectors(rng *rand.Rand, word string, k int) ([]float64, error) {
	return m.noiseSample(rng, word, k, m.perturb)
}

// Whiten applies Σ′^{−1/2}, the whitening of the Mahalanobis metric.
func (m *Mahalanobis) Whiten(dst, v []float64) { m.shape.whiten(dst, v) }

// NoisyVectors draws the noisy vectors the Vickrey mechanism decodes for k copies of word (see
// NoiseStep).
func (m *Vickrey) NoisyVectors(rng *rand.Rand, word string, k int) ([]float64, error) {
	return m.noiseSample(rng, word, k, m.perturb)
}

// Whiten is the identity for Laplace noise and Σ′^{−1/2} for Mahalanobis noise.
func (m *Vickrey) Whiten(dst, v []float64) {
	if m.shape == nil {
		identityWhiten(dst, v)
		return
	}
	m.shape.whiten(dst, v)
}
