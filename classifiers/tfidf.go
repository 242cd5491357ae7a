package classifiers

import (
	"math/rand/v2"

	"dptext/internal/learn"
)

// TfidfNBOptions configure the tf-idf naive Bayes topic classifier: the tf-idf keys
// (sublinear_tf, min_df, max_features, norm) and alpha, all at the top level of its table.
type TfidfNBOptions struct {
	learn.TfidfOptions
	learn.NBOptions
}

// DefaultTfidfNBOptions are learn's tf-idf defaults with α = 0.01 (SynTF's analyst).
func DefaultTfidfNBOptions() TfidfNBOptions {
	return TfidfNBOptions{learn.DefaultTfidfOptions(), learn.DefaultNBOptions()}
}

// TfidfSVMOptions configure the tf-idf linear SVM topic classifier: the tf-idf keys and the
// SVM keys (c, loss, max_iter, tol), all at the top level of its table.
type TfidfSVMOptions struct {
	learn.TfidfOptions
	learn.SVMOptions
}

// DefaultTfidfSVMOptions are learn's tf-idf defaults with the SVM defaults (C = 1).
func DefaultTfidfSVMOptions() TfidfSVMOptions {
	return TfidfSVMOptions{learn.DefaultTfidfOptions(), learn.DefaultSVMOptions()}
}

// sparseModel is a classifier of sparse vectors into 0…classes-1.
type sparseModel interface {
	fit(rng *rand.Rand, X []learn.Sparse, y []int, classes int) error
	predict(x learn.Sparse) int
}

// TfidfClassifier weights each document's words by tf-idf (learn.Tfidf fitted on the training
// documents) and classifies the sparse vector with multinomial naive Bayes or a linear SVM —
// the topic classifiers of SynTF (Weggenmann and Kerschbaum 2018, Sect. 5).
type TfidfClassifier struct {
	tfidfOpts learn.TfidfOptions
	model     sparseModel
	tfidf     *learn.Tfidf
	labels    *learn.Labels
}

// NewTfidfNB returns the tf-idf multinomial naive Bayes classifier (registry name nb).
func NewTfidfNB(opts TfidfNBOptions) (*TfidfClassifier, error) {
	if _, err := learn.NewTfidf(opts.TfidfOptions); err != nil {
		return nil, err
	}
	nb, err := learn.NewMultinomialNB(opts.NBOptions)
	if err != nil {
		return nil, err
	}
	return &TfidfClassifier{tfidfOpts: opts.TfidfOptions, model: nbModel{nb}}, nil
}

// NewTfidfSVM returns the tf-idf linear SVM classifier (registry name svm).
func NewTfidfSVM(opts TfidfSVMOptions) (*TfidfClassifier, error) {
	if _, err := learn.NewTfidf(opts.TfidfOptions); err != nil {
		return nil, err
	}
	svm, err := learn.NewLinearSVM(opts.SVMOptions)
	if err != nil {
		return nil, err
	}
	return &TfidfClassifier{tfidfOpts: opts.TfidfOptions, model: svmModel{svm}}, nil
}

// Fit learns the tf-idf weights and the model; the SVM draws its visiting orders from rng.
func (c *TfidfClassifier) Fit(rng *rand.Rand, docs [][]string, labels []string) error {
	c.tfidf, _ = learn.NewTfidf(c.tfidfOpts)
	if err := c.tfidf.Fit(docs); err != nil {
		return err
	}
	c.labels = learn.NewLabels(labels)
	y, err := c.labels.Encode(labels)
	if err != nil {
		return err
	}
	return c.model.fit(rng, c.tfidf.TransformAll(docs), y, c.labels.Len())
}

// Predict returns the model's label for every document (lowest label in sorted order on
// ties). It draws nothing from rng.
func (c *TfidfClassifier) Predict(_ *rand.Rand, docs [][]string) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = c.labels.Name(c.model.predict(c.tfidf.Transform(d)))
	}
	return out
}

type nbModel struct{ *learn.MultinomialNB }

func (m nbModel) fit(_ *rand.Rand, X []learn.Sparse, y []int, classes int) error {
	return m.Fit(X, y, classes)
}
func (m nbModel) predict(x learn.Sparse) int { return m.Predict(x) }

type svmModel struct{ *learn.LinearSVM }

func (m svmModel) fit(rng *rand.Rand, X []learn.Sparse, y []int, classes int) error {
	return m.Fit(rng, X, y, classes)
}
func (m svmModel) predict(x learn.Sparse) int { return m.Predict(x) }
