package classifiers

import (
	"slices"
	"testing"

	"dptext/internal/learn"
	"dptext/internal/rngs"
)

func TestClassifiersLearnTopics(t *testing.T) {
	train, test, store := testCorpora()
	for name, clf := range classifierCases(t, store) {
		pred := fitPredict(t, name, clf, train, test)
		s := learn.Score(test.labels, pred)
		t.Logf("%s: accuracy %.3f", name, s.Accuracy)
		if s.Accuracy < 0.95 {
			t.Errorf("%s: held-out accuracy %.3f, want ≥ 0.95", name, s.Accuracy)
		}
	}
}

// With every label drawn uniformly at random, independently of the words, the 400 test labels
// are independent of the predictions, so the correct count is Binomial(400, 1/4) whatever the
// classifier learnt. The accepted range 66…134 has P(X ≤ 65) ≈ 1.6e-5 and P(X ≥ 135) ≈ 5.6e-5:
// a false-failure rate below 1e-4 per classifier (5e-4 for the five).
func TestClassifiersChanceOnRandomLabels(t *testing.T) {
	train, test, store := testCorpora()
	train = train.randomLabels(rngs.New(8, "train-labels"), 4)
	test = test.randomLabels(rngs.New(8, "test-labels"), 4)
	for name, clf := range classifierCases(t, store) {
		pred := fitPredict(t, name, clf, train, test)
		s := learn.Score(test.labels, pred)
		t.Logf("%s: %d of 400 correct", name, s.Correct)
		if s.Correct < 66 || s.Correct > 134 {
			t.Errorf("%s: %d of 400 correct on random labels, want 66…134", name, s.Correct)
		}
	}
}

func TestClassifiersGoldenAndDeterministic(t *testing.T) {
	train, test, store := testCorpora()
	test.docs = test.docs[:40]
	for name, clf := range classifierCases(t, store) {
		first := fitPredict(t, name, clf, train, test)
		second := fitPredict(t, name, classifierCases(t, store)[name], train, test)
		if !slices.Equal(first, second) {
			t.Errorf("%s: two fits with equal streams predict differently", name)
		}
		checkGolden(t, name, first)
	}
}

func TestClassifiersRejectBadTraining(t *testing.T) {
	_, _, store := testCorpora()
	for name, clf := range classifierCases(t, store) {
		if err := clf.Fit(rngs.New(1, "x"), [][]string{{"a"}}, []string{"x", "y"}); err == nil {
			t.Errorf("%s: length mismatch accepted", name)
		}
		if err := clf.Fit(rngs.New(1, "x"), nil, nil); err == nil {
			t.Errorf("%s: empty training set accepted", name)
		}
	}
}

func BenchmarkClassifiers(b *testing.B) {
	// 2,000 documents of 300 words over a 50,000-word vocabulary (≈ 50k tf-idf features).
	train := generateTopics(rngs.New(9, "bench"), 4, 50000, 500, 300)
	store := topicStore(rngs.New(9, "store"), 4, 50000, 100)
	ftOpts := DefaultFastTextOptions()
	ftOpts.Epochs = 5
	ft, _ := NewFastText(ftOpts, nil)
	nb, _ := NewTfidfNB(DefaultTfidfNBOptions())
	svm, _ := NewTfidfSVM(DefaultTfidfSVMOptions())
	knn, _ := NewMeanEmbeddingKNN(store, KNNOptions{K: 5})
	for _, c := range []struct {
		name string
		clf  learn.Classifier
	}{{"fasttext-5epochs", ft}, {"nb", nb}, {"svm", svm}, {"knn5", knn}} {
		b.Run(c.name+"/fit", func(b *testing.B) {
			for range b.N {
				if err := c.clf.Fit(rngs.New(9, "fit"), train.docs, train.labels); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/predict", func(b *testing.B) {
			for range b.N {
				c.clf.Predict(rngs.New(9, "predict"), train.docs)
			}
		})
	}
}
