package attackers

import (
	"dptext/classifiers"
	"dptext/embeddings"
	"dptext/internal/learn"
)

// NewSRNN is the SRauth attacker of Fernandes, Dras and McIver (2019, Sect. 5): the nearest
// neighbour (opts.K = 1 in the paper) among the known texts by Euclidean distance between mean
// raw word vectors; the same representation as the SR topic classifier, whose code it shares
// (classifiers.MeanEmbeddingKNN).
func NewSRNN(store *embeddings.Store, opts classifiers.KNNOptions) (learn.Classifier, error) {
	return classifiers.NewMeanEmbeddingKNN(store, opts)
}
