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
// other, and calls inTurn (when not nil) after each document's noise, for the draws that follow
// it in TryApply. The error names the document and the token.
func (w *wordDecoding) drawBatch(rngs []*rand.Rand, docs [][]string, perturb perturbation, inTurn func(d int, rows []int)) (*noisyBatch, error) {
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
		if inTurn != nil {
			inTurn(d, rows)
		}
	}
	return b, nil
}

// DrawsInTurn reports that the batch path makes every draw of a document at its turn, before
// decoding anything (mechanisms.InTurnDrawer): a batch whose generators are one generator
// repeated releases what TryApply on each document in turn releases.
func (w *wordDecoding) DrawsInTurn() bool { return true }

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
	return m.drawBatchThen(rngs, docs, nil)
}

// drawBatchThen is DrawBatch with inTurn called after each document's noise (drawBatch).
func (m *EMD) drawBatchThen(rngs []*rand.Rand, docs [][]string, inTurn func(d int, rows []int)) ([]mechanisms.Draws, error) {
	b, err := m.drawBatch(rngs, docs, m.perturb, inTurn)
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
// Under order "bag" the release order (which needs only the number of words) is drawn at the
// document's turn, right after its noise, as Release draws it after Draw.
func (m *EMD) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	orders := make([][]int, len(docs))
	draws, err := m.drawBatchThen(rngs, docs, func(d int, rows []int) {
		orders[d] = m.drawOrder(rngs[d], m.releasedLen(rows)) // Release's draw, at the document's turn
	})
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(docs))
	for d, doc := range docs {
		dr := draws[d].(*emdDraws)
		out[d] = arrange(m.release(doc, dr.rows, dr.decoded), orders[d])
	}
	return out, nil
}

// TryApplyBatch is TryApply on every document with its own generator, the noisy vectors of all
// documents decoded together (mechanisms.FallibleBatchMechanism): the outputs are TryApply's.
func (m *Mahalanobis) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	b, err := m.drawBatch(rngs, docs, m.perturb, nil)
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
// documents decoded to their two nearest words together (mechanisms.FallibleBatchMechanism): the
// outputs are TryApply's. The choice's uniform of each token (one Float64, drawn whatever the
// two words) is drawn at the document's turn, right after its noise, where TryApply draws it
// too: a single document's draws are the same sequence either way.
func (m *Vickrey) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	var uniforms []float64 // one per privatised token, in batch order
	b, err := m.drawBatch(rngs, docs, m.perturb, func(d int, rows []int) {
		for _, row := range rows {
			if row >= 0 {
				uniforms = append(uniforms, rngs[d].Float64())
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("vickrey at epsilon = %g: %w", m.epsilon, err)
	}
	n := b.start[len(docs)]
	first, second := make([]int, n), make([]int, n)
	m.decode(b, first, second)
	dim := m.store.Dim()
	for k := range first {
		if uniforms[k] < m.secondProbability(b.queries[k*dim:(k+1)*dim], first[k], second[k]) {
			first[k] = second[k]
		}
	}
	out := make([][]string, len(docs))
	for d, doc := range docs {
		out[d] = m.release(doc, b.rows[d], b.span(d, first))
	}
	return out, nil
}
