package metricdp

import (
	"fmt"
	"math/rand/v2"

	"dptext/mechanisms"
)

// decodeChunk bounds the noisy vectors decoded in one call of a batch (about 13 MB of float64
// queries at dimension 100): enough for the decoder's tiles and workers, without holding a
// whole run's vectors at once.
const decodeChunk = 1 << 14

// noisyBatch is the draws of a batch of documents before decoding: per document, the vocabulary
// row each token privatises (noisyQueries' rows) and where its noisy vectors start in queries.
type noisyBatch struct {
	rows    [][]int
	start   []int // start[d]: index of document d's first noisy vector; start[len(docs)] = total
	queries []float64
}

// drawBatch draws the noise of every document of docs with its own generator, in document order
// within each (noisyQueries: exactly the draws TryApply makes first), one document after the
// other. The error names the document and the token.
func (w *wordDecoding) drawBatch(rngs []*rand.Rand, docs [][]string, perturb perturbation) (*noisyBatch, error) {
	if len(rngs) != len(docs) {
		return nil, fmt.Errorf("%d generators for %d documents", len(rngs), len(docs))
	}
	b := &noisyBatch{rows: make([][]int, len(docs)), start: make([]int, len(docs)+1)}
	dim := w.store.Dim()
	for d, doc := range docs {
		rows, queries, err := w.noisyQueries(rngs[d], doc, perturb)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", d, err)
		}
		b.rows[d] = rows
		b.queries = append(b.queries, queries...)
		b.start[d+1] = len(b.queries) / dim
	}
	return b, nil
}

// decode decodes every noisy vector of the batch to its nearest row (and, with second not nil,
// its second nearest: Decode2), decodeChunk vectors per call: the decoder is exact, so each
// answer is the one a call per document gives.
func (w *wordDecoding) decode(b *noisyBatch, first, second []int) {
	dim := w.store.Dim()
	n := len(b.queries) / dim
	for lo := 0; lo < n; lo += decodeChunk {
		hi := min(n, lo+decodeChunk)
		q := b.queries[lo*dim : hi*dim]
		if second != nil {
			w.decoder.Decode2(q, first[lo:hi], second[lo:hi])
		} else {
			w.decoder.Decode(q, first[lo:hi])
		}
	}
}

// span returns document d's part of a per-vector slice of the batch.
func (b *noisyBatch) span(d int, xs []int) []int { return xs[b.start[d]:b.start[d+1]] }

// DrawBatch makes Draw's draws of every document with its own generator (rngs[i] for docs[i]),
// decoding the noisy vectors of all of them together: each element, and each generator's state
// after it, is what Draw(rngs[i], docs[i]) gives (mechanisms.BatchDrawSharer).
func (m *EMD) DrawBatch(rngs []*rand.Rand, docs [][]string) ([]mechanisms.Draws, error) {
	b, err := m.drawBatch(rngs, docs, m.perturb)
	if err != nil {
		return nil, fmt.Errorf("emd at epsilon = %g: %w", m.epsilon, err)
	}
	decoded := make([]int, b.start[len(docs)])
	m.decode(b, decoded, nil)
	out := make([]mechanisms.Draws, len(docs))
	for d := range docs {
		out[d] = &emdDraws{rows: b.rows[d], decoded: b.span(d, decoded)}
	}
	return out, nil
}

// TryApplyBatch is TryApply on every document with its own generator, the noisy vectors of all
// documents decoded together (mechanisms.FallibleBatchMechanism): the outputs are TryApply's.
func (m *EMD) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	draws, err := m.DrawBatch(rngs, docs)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(docs))
	for d, doc := range docs {
		if out[d], err = m.Release(rngs[d], doc, draws[d]); err != nil {
			return nil, fmt.Errorf("document %d: %w", d, err)
		}
	}
	return out, nil
}

// TryApplyBatch is TryApply on every document with its own generator, the noisy vectors of all
// documents decoded together (mechanisms.FallibleBatchMechanism): the outputs are TryApply's.
func (m *Mahalanobis) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	b, err := m.drawBatch(rngs, docs, m.perturb)
	if err != nil {
		return nil, fmt.Errorf("mahalanobis at epsilon = %g: %w", m.epsilon, err)
	}
	decoded := make([]int, b.start[len(docs)])
	m.decode(b, decoded, nil)
	out := make([][]string, len(docs))
	for d, doc := range docs {
		out[d] = m.release(doc, b.rows[d], b.span(d, decoded))
	}
	return out, nil
}

// TryApplyBatch is TryApply on every document with its own generator, the noisy vectors of all
// documents decoded to their two nearest words together; each document's choices are then drawn
// from its own generator in document order, as TryApply draws them after its decoding
// (mechanisms.FallibleBatchMechanism): the outputs are TryApply's.
func (m *Vickrey) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	b, err := m.drawBatch(rngs, docs, m.perturb)
	if err != nil {
		return nil, fmt.Errorf("vickrey at epsilon = %g: %w", m.epsilon, err)
	}
	n := b.start[len(docs)]
	first, second := make([]int, n), make([]int, n)
	m.decode(b, first, second)
	dim := m.store.Dim()
	out := make([][]string, len(docs))
	for d, doc := range docs {
		for k := b.start[d]; k < b.start[d+1]; k++ {
			if rngs[d].Float64() < m.secondProbability(b.queries[k*dim:(k+1)*dim], first[k], second[k]) {
				first[k] = second[k]
			}
		}
		out[d] = m.release(doc, b.rows[d], b.span(d, first))
	}
	return out, nil
}
