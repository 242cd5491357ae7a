package learn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"dptext/internal/rngs"
)

// referenceIndex maps each fitted feature of t to its index in a Go map (Tfidf keeps them in a
// strindex.Index).
func referenceIndex(t *Tfidf) map[string]int32 {
	index := make(map[string]int32, len(t.features))
	for i, f := range t.features {
		index[f] = int32(i)
	}
	return index
}

// transformReference is Tfidf.Transform's counting as first written: the features' indices
// (looked up in index, from referenceIndex) sorted and runs of equal indices counted, then
// weighted and normalised by Transform's weigh.
func transformReference(t *Tfidf, index map[string]int32, doc []string) Sparse {
	ids := make([]int32, 0, len(doc))
	for _, f := range doc {
		if i, ok := index[f]; ok {
			ids = append(ids, i)
		}
	}
	slices.Sort(ids)
	var v Sparse
	for k, i := range ids {
		if k > 0 && i == ids[k-1] {
			v.Value[len(v.Value)-1]++
			continue
		}
		v.Index = append(v.Index, i)
		v.Value = append(v.Value, 1)
	}
	return t.weigh(v)
}

// randomFeatureDocs draws n documents of up to length features from a Zipf-like vocabulary of
// size words (named f0, f1, …), so features repeat within a document.
func randomFeatureDocs(rng *rand.Rand, n, length, size int) [][]string {
	docs := make([][]string, n)
	for d := range docs {
		docs[d] = make([]string, rng.IntN(length+1))
		for i := range docs[d] {
			docs[d][i] = fmt.Sprintf("f%d", int(float64(size)*rng.Float64()*rng.Float64()))
		}
	}
	return docs
}

// Transform counts features through a bitset and reusable counts; it must give the sort-based
// reference's vector exactly (indices and value bits), for documents with repeats, unseen
// features and none at all, under every option, from eight goroutines at once (the counts are
// pooled), and leave nothing behind for the next document. Before Fit every document is the
// zero vector. Mutant: a count not reset after its document → the next documents differ.
func TestTfidfTransformEqualsReference(t *testing.T) {
	rng := rngs.New(4, "tfidf/transform")
	train := randomFeatureDocs(rng, 40, 300, 3000)
	test := append(randomFeatureDocs(rng, 200, 300, 4000), nil, []string{"unseen"})
	var unfitted Tfidf
	if v := unfitted.Transform(test[0]); len(v.Index) != 0 {
		t.Fatalf("Transform before Fit: %v, want the zero vector", v)
	}
	for _, opts := range []TfidfOptions{DefaultTfidfOptions(), {MinDF: 2, MaxFeatures: 500, SublinearTF: true, Norm: "none"}} {
		tf, err := NewTfidf(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := tf.Fit(train); err != nil {
			t.Fatal(err)
		}
		index := referenceIndex(tf)
		var wg sync.WaitGroup
		errs := make(chan string, len(test))
		for g := range 8 {
			wg.Go(func() {
				for d := g; d < len(test); d += 8 {
					got, want := tf.Transform(test[d]), transformReference(tf, index, test[d])
					if !slices.Equal(got.Index, want.Index) || !slices.EqualFunc(got.Value, want.Value, func(a, b float64) bool {
						return math.Float64bits(a) == math.Float64bits(b)
					}) {
						errs <- fmt.Sprintf("%+v, document %d: %v, reference %v", opts, d, got, want)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Fatal(e)
		}
	}
}

// decisionReference is LinearSVM.Decision as first written: each class's weights dotted with x
// by DotDense, then its bias added.
func decisionReference(m *LinearSVM, x Sparse) []float64 {
	if m.classes == 2 {
		f := x.DotDense(m.weights[0][:m.dim]) + m.weights[0][m.dim]
		return []float64{-f, f}
	}
	out := make([]float64, m.classes)
	for k, w := range m.weights {
		out[k] = x.DotDense(w[:m.dim]) + w[m.dim]
	}
	return out
}

// Decision reads a multi-class machine's weights feature by feature; every decision value must
// be the per-class DotDense's bit for bit, on test vectors with features beyond the training
// dimension, for two classes and for seven. Mutant: the bias added before the products → fail.
func TestLinearSVMDecisionEqualsReference(t *testing.T) {
	rng := rngs.New(6, "svm/decision")
	tf, err := NewTfidf(DefaultTfidfOptions())
	if err != nil {
		t.Fatal(err)
	}
	train := randomFeatureDocs(rng, 70, 200, 2000)
	if err := tf.Fit(train); err != nil {
		t.Fatal(err)
	}
	X := tf.TransformAll(train)
	for _, classes := range []int{2, 7} {
		y := make([]int, len(X))
		for i := range y {
			y[i] = i % classes
		}
		m, err := NewLinearSVM(DefaultSVMOptions())
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Fit(rngs.New(1, "svm"), X, y, classes); err != nil {
			t.Fatal(err)
		}
		for d, doc := range randomFeatureDocs(rng, 100, 200, 2000) {
			x := tf.Transform(doc)
			x.Index, x.Value = append(x.Index, int32(m.dim+3)), append(x.Value, 0.5) // beyond the training dimension
			got, want := m.Decision(x), decisionReference(m, x)
			if !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
				t.Fatalf("%d classes, document %d: %v, reference %v", classes, d, got, want)
			}
		}
	}
}

// BenchmarkTfidfTransform and BenchmarkLinearSVMDecision time Transform and Decision against
// their references on 420 documents of 5,000 features over 60,000 (char-ngram-svm's sizes on a
// cell of configs/mechanisms.toml: 209 words, n-grams of 2–5 characters), 30 classes.
func BenchmarkTfidfTransform(b *testing.B) {
	rng := rngs.New(8, "tfidf/bench")
	tf, _ := NewTfidf(DefaultTfidfOptions())
	if err := tf.Fit(randomFeatureDocs(rng, 30, 20000, 60000)); err != nil {
		b.Fatal(err)
	}
	docs := randomFeatureDocs(rng, 420, 5000, 60000)
	b.Run("bitset", func(b *testing.B) {
		for b.Loop() {
			for _, d := range docs {
				tf.Transform(d)
			}
		}
	})
	index := referenceIndex(tf)
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			for _, d := range docs {
				transformReference(tf, index, d)
			}
		}
	})
}

func BenchmarkLinearSVMDecision(b *testing.B) {
	rng := rngs.New(9, "svm/bench")
	tf, _ := NewTfidf(DefaultTfidfOptions())
	train := randomFeatureDocs(rng, 60, 20000, 60000)
	if err := tf.Fit(train); err != nil {
		b.Fatal(err)
	}
	X := tf.TransformAll(train)
	y := make([]int, len(X))
	for i := range y {
		y[i] = i % 30
	}
	m, _ := NewLinearSVM(DefaultSVMOptions())
	if err := m.Fit(rngs.New(1, "svm"), X, y, 30); err != nil {
		b.Fatal(err)
	}
	docs := tf.TransformAll(randomFeatureDocs(rng, 420, 5000, 60000))
	b.Run("by-feature", func(b *testing.B) {
		for b.Loop() {
			for _, x := range docs {
				m.Decision(x)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			for _, x := range docs {
				decisionReference(m, x)
			}
		}
	})
}
