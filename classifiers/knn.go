package classifiers

import (
	"fmt"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/linalg"
)

// KNNOptions configure a MeanEmbeddingKNN.
type KNNOptions struct {
	// K is the number of nearest training documents that vote (≥ 1).
	K int `toml:"k"`
}

// DefaultKNNOptions are K = 1 (the SR author attacker; the SR topic classifier uses K = 5).
func DefaultKNNOptions() KNNOptions { return KNNOptions{K: 1} }

// knnBlock is the number of query documents whose distances are computed in one matrix
// product, bounding the scratch memory to knnBlock × training documents.
const knnBlock = 256

// MeanEmbeddingKNN is the same-representation classifier of Fernandes, Dras and McIver (2019,
// Sect. 5): a document is the mean of the raw vectors of its in-vocabulary words (a document
// with no such word is the zero vector), and a query gets the majority label of its K nearest
// training documents in Euclidean distance. Distances are ranked by |q|² + |t|² − 2 q·t with
// the products of a block of queries with all training means done by linalg.MulABt; equal
// distances rank the earlier training document first. A tie in votes goes to the tied label
// whose member ranks nearest. K = 1 is the SR author attacker (sr-nn), K = 5 the SR topic
// classifier (sr-knn-topic).
type MeanEmbeddingKNN struct {
	store  *embeddings.Store
	opts   KNNOptions
	means  []float32 // training documents × dim
	norms  []float32 // squared norms of the means
	labels []string
}

// NewMeanEmbeddingKNN validates opts; store must not be nil.
func NewMeanEmbeddingKNN(store *embeddings.Store, opts KNNOptions) (*MeanEmbeddingKNN, error) {
	if store == nil {
		return nil, fmt.Errorf("knn: no word vectors")
	}
	if opts.K < 1 {
		return nil, fmt.Errorf("knn: k = %d: want ≥ 1", opts.K)
	}
	return &MeanEmbeddingKNN{store: store, opts: opts}, nil
}

// Fit stores the mean vectors of the training documents. It draws nothing from rng.
func (c *MeanEmbeddingKNN) Fit(_ *rand.Rand, docs [][]string, labels []string) error {
	if len(docs) != len(labels) {
		return fmt.Errorf("knn: %d documents but %d labels", len(docs), len(labels))
	}
	if len(docs) == 0 {
		return fmt.Errorf("knn: no training documents")
	}
	c.means, c.norms = meanMatrix(c.store, docs)
	c.labels = append([]string(nil), labels...)
	return nil
}

// Predict labels every document by the vote of its K nearest training documents (all of
// them if fewer than K). It draws nothing from rng.
func (c *MeanEmbeddingKNN) Predict(_ *rand.Rand, docs [][]string) []string {
	out := make([]string, len(docs))
	dim, n := c.store.Dim(), len(c.labels)
	k := min(c.opts.K, n)
	dots := make([]float32, min(knnBlock, len(docs))*n)
	nearest := make([]int, 0, k+1)
	dist := make([]float32, 0, k+1)
	for start := 0; start < len(docs); start += knnBlock {
		end := min(start+knnBlock, len(docs))
		q, qn := meanMatrix(c.store, docs[start:end])
		linalg.MulABt(dots, q, end-start, c.means, n, dim)
		for i := range end - start {
			nearest, dist = nearest[:0], dist[:0]
			row := dots[i*n : (i+1)*n]
			for t := range n {
				d := qn[i] + c.norms[t] - 2*row[t]
				if len(nearest) == k && d >= dist[k-1] {
					continue
				}
				nearest, dist = insertNeighbour(nearest, dist, t, d, k)
			}
			out[start+i] = c.vote(nearest)
		}
	}
	return out
}

// insertNeighbour inserts training document t at distance d into the sorted list, after
// every neighbour at a distance ≤ d, keeping at most k.
func insertNeighbour(nearest []int, dist []float32, t int, d float32, k int) ([]int, []float32) {
	pos := len(nearest)
	for pos > 0 && dist[pos-1] > d {
		pos--
	}
	nearest = append(nearest, 0)
	dist = append(dist, 0)
	copy(nearest[pos+1:], nearest[pos:])
	copy(dist[pos+1:], dist[pos:])
	nearest[pos], dist[pos] = t, d
	if len(nearest) > k {
		nearest, dist = nearest[:k], dist[:k]
	}
	return nearest, dist
}

// vote returns the most common label among the ranked neighbours, the one ranked nearest
// among tied labels.
func (c *MeanEmbeddingKNN) vote(nearest []int) string {
	counts := map[string]int{}
	top := 0
	for _, t := range nearest {
		counts[c.labels[t]]++
		top = max(top, counts[c.labels[t]])
	}
	for _, t := range nearest {
		if counts[c.labels[t]] == top {
			return c.labels[t]
		}
	}
	return ""
}

// meanMatrix returns the mean vectors of docs (row-major) and their squared norms.
func meanMatrix(store *embeddings.Store, docs [][]string) (means, sqNorms []float32) {
	dim := store.Dim()
	means = make([]float32, len(docs)*dim)
	sqNorms = make([]float32, len(docs))
	acc := make([]float64, dim)
	for i, d := range docs {
		if !store.MeanVector(d, acc) {
			continue
		}
		var s float64
		for j, v := range acc {
			means[i*dim+j] = float32(v)
			s += v * v
		}
		sqNorms[i] = float32(s)
	}
	return means, sqNorms
}
