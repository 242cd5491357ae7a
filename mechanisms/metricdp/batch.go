package metricdp

import (
	"fmt"
	"math/rand/v2"

	"dptext/mechanisms"
)

// decodeChunk is about how many noisy vectors a batch decodes per call (about 13 MB of float64
// queries at dimension 100): enough for the decoder's tiles and workers, while the batch holds
// one chunk of vectors at a time, in one buffer reused from chunk to chunk.
const decodeChunk = 1 << 14

// decodedDoc is one document of a batch once its chunk is decoded: the vocabulary row each
// token privatises (noisyQueries' rows), its noisy vectors (row-major; valid during the call
// only) and their nearest rows (and second nearest, for Decode2), in token order.
type decodedDoc struct {
	rows          []int
	z             []float64
	first, second []int
}

// eachDecoded draws the noise of every document of docs with its own generator, in document
// order within each (noisyQueries: exactly the draws TryApply makes first), one document after
// the other, and calls inTurn (when not nil) after each document's noise, for the draws that
// follow it in TryApply. Whenever decodeChunk vectors are waiting, and at the end, it decodes
// them in one call (to the two nearest rows with two) and calls done for each of their
// documents, in document order. The decoder is exact, so each answer is the one a call per
// document gives. The error names the document and the token.
func (w *wordDecoding) eachDecoded(rngs []*rand.Rand, docs [][]string, perturb perturbation, two bool,
	inTurn func(d int, rows []int), done func(d int, doc decodedDoc)) error {
	if len(rngs) != len(docs) {
		return fmt.Errorf("%d generators for %d documents", len(rngs), len(docs))
	}
	type waiting struct {
		d      int
		rows   []int
		lo, hi int // the document's vectors in the chunk
	}
	dim := w.store.Dim()
	var queries []float64
	var chunk []waiting
	flush := func() {
		n := len(queries) / dim
		first, second := make([]int, n), []int(nil)
		switch {
		case n == 0:
		case two:
			second = make([]int, n)
			w.decoder.Decode2(queries, first, second)
		default:
			w.decoder.Decode(queries, first)
		}
		for _, c := range chunk {
			dd := decodedDoc{rows: c.rows, z: queries[c.lo*dim : c.hi*dim], first: first[c.lo:c.hi:c.hi]}
			if two {
				dd.second = second[c.lo:c.hi:c.hi]
			}
			done(c.d, dd)
		}
		chunk, queries = chunk[:0], queries[:0]
	}
	for d, doc := range docs {
		lo := len(queries) / dim
		rows, q, err := w.appendNoisy(rngs[d], doc, perturb, queries)
		if err != nil {
			return fmt.Errorf("document %d: %w", d, err)
		}
		queries = q
		chunk = append(chunk, waiting{d: d, rows: rows, lo: lo, hi: len(queries) / dim})
		if inTurn != nil {
			inTurn(d, rows)
		}
		if len(queries)/dim >= decodeChunk {
			flush()
		}
	}
	flush()
	return nil
}

// DrawsInTurn reports that the batch path makes every draw of a document at its turn, before
// decoding anything (mechanisms.InTurnDrawer): a batch whose generators are one generator
// repeated releases what TryApply on each document in turn releases.
func (w *wordDecoding) DrawsInTurn() bool { return true }

// DrawBatch makes Draw's draws of every document with its own generator (rngs[i] for docs[i]),
// decoding the noisy vectors of all of them together: each element, and each generator's state
// after it, is what Draw(rngs[i], docs[i]) gives (mechanisms.BatchDrawSharer).
func (m *EMD) DrawBatch(rngs []*rand.Rand, docs [][]string) ([]mechanisms.Draws, error) {
	out := make([]mechanisms.Draws, len(docs))
	err := m.eachDecoded(rngs, docs, m.perturb, false, nil, func(d int, dd decodedDoc) {
		out[d] = &emdDraws{rows: dd.rows, decoded: dd.first}
	})
	if err != nil {
		return nil, fmt.Errorf("emd at epsilon = %g: %w", m.epsilon, err)
	}
	return out, nil
}

// TryApplyBatch is TryApply on every document with its own generator, the noisy vectors of all
// documents decoded together (mechanisms.FallibleBatchMechanism): the outputs are TryApply's.
// Under order "bag" the release order (which needs only the number of words) is drawn at the
// document's turn, right after its noise, as Release draws it after Draw.
func (m *EMD) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	orders := make([][]int, len(docs))
	inTurn := func(d int, rows []int) {
		orders[d] = m.drawOrder(rngs[d], m.releasedLen(rows)) // Release's draw, at the document's turn
	}
	out := make([][]string, len(docs))
	err := m.eachDecoded(rngs, docs, m.perturb, false, inTurn, func(d int, dd decodedDoc) {
		out[d] = arrange(m.release(docs[d], dd.rows, dd.first), orders[d])
	})
	if err != nil {
		return nil, fmt.Errorf("emd at epsilon = %g: %w", m.epsilon, err)
	}
	return out, nil
}

// TryApplyBatch is TryApply on every document with its own generator, the noisy vectors of all
// documents decoded together (mechanisms.FallibleBatchMechanism): the outputs are TryApply's.
func (m *Mahalanobis) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	out := make([][]string, len(docs))
	err := m.eachDecoded(rngs, docs, m.perturb, false, nil, func(d int, dd decodedDoc) {
		out[d] = m.release(docs[d], dd.rows, dd.first)
	})
	if err != nil {
		return nil, fmt.Errorf("mahalanobis at epsilon = %g: %w", m.epsilon, err)
	}
	return out, nil
}

// TryApplyBatch is TryApply on every document with its own generator, the noisy vectors of all
// documents decoded to their two nearest words together (mechanisms.FallibleBatchMechanism): the
// outputs are TryApply's. The choice's uniform of each token (one Float64, drawn whatever the
// two words) is drawn at the document's turn, right after its noise, where TryApply draws it
// too: a single document's draws are the same sequence either way.
func (m *Vickrey) TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	uniforms := make([][]float64, len(docs)) // per document, one per privatised token
	inTurn := func(d int, rows []int) {
		for _, row := range rows {
			if row >= 0 {
				uniforms[d] = append(uniforms[d], rngs[d].Float64())
			}
		}
	}
	dim := m.store.Dim()
	out := make([][]string, len(docs))
	err := m.eachDecoded(rngs, docs, m.perturb, true, inTurn, func(d int, dd decodedDoc) {
		for k := range dd.first {
			if uniforms[d][k] < m.secondProbability(dd.z[k*dim:(k+1)*dim], dd.first[k], dd.second[k]) {
				dd.first[k] = dd.second[k]
			}
		}
		out[d] = m.release(docs[d], dd.rows, dd.first)
	})
	if err != nil {
		return nil, fmt.Errorf("vickrey at epsilon = %g: %w", m.epsilon, err)
	}
	return out, nil
}
