package classifiers

import (
	"testing"

	"dptext/embeddings"
)

// On a line: x = 0, y = 1, z = 10. Training means: 0 (A), 1 (B), 10 (B), 0 (C).
func TestMeanEmbeddingKNNHandComputed(t *testing.T) {
	store, err := embeddings.New([]string{"x", "y", "z"}, 1, []float32{0, 1, 10})
	if err != nil {
		t.Fatal(err)
	}
	train := [][]string{{"x"}, {"y"}, {"z", "oov"}, {"x", "x"}}
	labels := []string{"A", "B", "B", "C"}
	cases := []struct {
		k    int
		doc  []string
		want string
	}{
		{1, []string{"x"}, "A"},           // distance 0 to A and C: the earlier (A) ranks first
		{2, []string{"x"}, "A"},           // A and C one vote each: A ranks nearer
		{3, []string{"y", "y"}, "B"},      // B (0), A (1), C (1): one vote each, B nearest
		{4, []string{"x", "y"}, "B"},      // mean 0.5: A, B, C at 0.5, B at 9.5: B has two votes
		{1, []string{"oov"}, "A"},         // no known word: the zero vector
		{10, []string{"z"}, "B"},          // K beyond the training set: all four vote
		{1, []string{"z", "y", "z"}, "B"}, // mean 7: nearest is z's document
	}
	for _, c := range cases {
		knn, err := NewMeanEmbeddingKNN(store, KNNOptions{K: c.k})
		if err != nil {
			t.Fatal(err)
		}
		if err := knn.Fit(nil, train, labels); err != nil {
			t.Fatal(err)
		}
		if got := knn.Predict(nil, [][]string{c.doc}); got[0] != c.want {
			t.Errorf("k=%d %v: got %s, want %s", c.k, c.doc, got[0], c.want)
		}
	}
}

// More queries than one block of the distance product, checked against a brute-force loop.
func TestMeanEmbeddingKNNBlocksMatchBruteForce(t *testing.T) {
	train, test, store := testCorpora()
	queries := append(append([][]string{}, test.docs...), test.docs...)[:knnBlock+37]
	knn, _ := NewMeanEmbeddingKNN(store, KNNOptions{K: 1})
	if err := knn.Fit(nil, train.docs, train.labels); err != nil {
		t.Fatal(err)
	}
	got := knn.Predict(nil, queries)
	dim := store.Dim()
	q, t1 := make([]float64, dim), make([]float64, dim)
	for i, doc := range queries {
		store.MeanVector(doc, q)
		best, bestD := -1, 0.0
		for j, d := range train.docs {
			store.MeanVector(d, t1)
			var s float64
			for k := range q {
				s += (q[k] - t1[k]) * (q[k] - t1[k])
			}
			if best < 0 || s < bestD {
				best, bestD = j, s
			}
		}
		if got[i] != train.labels[best] {
			t.Fatalf("query %d: got %s, brute force %s", i, got[i], train.labels[best])
		}
	}
}

func TestNewMeanEmbeddingKNNErrors(t *testing.T) {
	_, _, store := testCorpora()
	if _, err := NewMeanEmbeddingKNN(store, KNNOptions{K: 0}); err == nil {
		t.Error("k = 0 accepted")
	}
	if _, err := NewMeanEmbeddingKNN(nil, DefaultKNNOptions()); err == nil {
		t.Error("nil store accepted")
	}
	if DefaultKNNOptions().K != 1 {
		t.Error("default k is not 1")
	}
}
