package attackers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"dptext/internal/learn"
)

// CharNgramOptions configure the char-ngram-svm attacker.
type CharNgramOptions struct {
	// NgramMin and NgramMax bound the character n-gram sizes (1 ≤ min ≤ max).
	NgramMin int `toml:"ngram_min"`
	NgramMax int `toml:"ngram_max"`
	// Tfidf configures the weighting (learn.TfidfOptions).
	Tfidf learn.TfidfOptions `toml:"tfidf"`
	// SVM configures the one-vs-rest linear SVM (learn.SVMOptions).
	SVM learn.SVMOptions `toml:"svm"`
}

// DefaultCharNgramOptions are n-grams of 2 to 5 characters (SPEC §5 allows 1–4 or 2–5; 2–5
// drops single letters, which carry little beyond the WritePrints letter rates), learn's
// default tf-idf (raw counts, smoothed idf, l2 norm, every feature) and SVM (C = 1).
func DefaultCharNgramOptions() CharNgramOptions {
	return CharNgramOptions{NgramMin: 2, NgramMax: 5, Tfidf: learn.DefaultTfidfOptions(), SVM: learn.DefaultSVMOptions()}
}

// CharNgram is the char-ngram-svm authorship attacker, the character n-gram baseline of the
// PAN attribution tasks: a document is its tokens joined by single spaces, its features are
// all character (rune) n-grams of sizes NgramMin…NgramMax of that text (crossing the spaces),
// weighted by tf-idf fitted on the training texts, and a one-vs-rest linear SVM names the
// author.
type CharNgram struct {
	opts   CharNgramOptions
	tfidf  *learn.Tfidf
	svm    *learn.LinearSVM
	labels *learn.Labels
	// calibration holds the folds of CalibrateFit (nil until it runs) and calibrationLabels
	// the candidates in the order of Probabilities.
	calibration       []calibrated
	calibrationLabels *learn.Labels
}

// NewCharNgram validates opts and returns an unfitted attacker.
func NewCharNgram(opts CharNgramOptions) (*CharNgram, error) {
	if opts.NgramMin < 1 {
		return nil, fmt.Errorf("char-ngram-svm: ngram_min = %d: want ≥ 1", opts.NgramMin)
	}
	if opts.NgramMax < opts.NgramMin {
		return nil, fmt.Errorf("char-ngram-svm: ngram_max = %d: want ≥ ngram_min = %d", opts.NgramMax, opts.NgramMin)
	}
	tfidf, err := learn.NewTfidf(opts.Tfidf)
	if err != nil {
		return nil, fmt.Errorf("char-ngram-svm: %w", err)
	}
	svm, err := learn.NewLinearSVM(opts.SVM)
	if err != nil {
		return nil, fmt.Errorf("char-ngram-svm: %w", err)
	}
	return &CharNgram{opts: opts, tfidf: tfidf, svm: svm}, nil
}

// Fit learns the tf-idf weighting and the SVM from the known texts (rng orders the SVM's
// coordinate descent).
func (c *CharNgram) Fit(rng *rand.Rand, docs [][]string, labels []string) error {
	if len(docs) != len(labels) || len(docs) == 0 {
		return fmt.Errorf("char-ngram-svm: %d documents and %d labels: want equal, non-zero counts", len(docs), len(labels))
	}
	grams := make([][]string, len(docs))
	for i, d := range docs {
		grams[i] = c.ngrams(d)
	}
	if err := c.tfidf.Fit(grams); err != nil {
		return fmt.Errorf("char-ngram-svm: %w", err)
	}
	labelSet := learn.NewLabels(labels)
	y, err := labelSet.Encode(labels)
	if err != nil {
		return err
	}
	if err := c.svm.Fit(rng, c.tfidf.TransformAll(grams), y, labelSet.Len()); err != nil {
		return fmt.Errorf("char-ngram-svm: %w", err)
	}
	c.labels = labelSet
	return nil
}

// Predict returns the most likely training author of every document; rng is not used.
func (c *CharNgram) Predict(_ *rand.Rand, docs [][]string) []string {
	if c.labels == nil {
		panic("char-ngram-svm: Predict before a successful Fit")
	}
	classes := make([]int, len(docs))
	for i, d := range docs {
		classes[i] = c.svm.Predict(c.tfidf.Transform(c.ngrams(d)))
	}
	return c.labels.Decode(classes)
}

// PredictTopTwo returns the most likely training author of every document with the SVM's
// decision value for it and for the runner-up author; rng is not used.
func (c *CharNgram) PredictTopTwo(_ *rand.Rand, docs [][]string) (authors []string, top, second []float64) {
	if c.labels == nil {
		panic("char-ngram-svm: PredictTopTwo before a successful Fit")
	}
	classes := make([]int, len(docs))
	top, second = make([]float64, len(docs)), make([]float64, len(docs))
	for i, d := range docs {
		dec := c.svm.Decision(c.tfidf.Transform(c.ngrams(d)))
		best := 0
		for j, v := range dec {
			if v > dec[best] {
				best = j
			}
		}
		top[i], second[i] = dec[best], math.Inf(-1)
		for j, v := range dec {
			if j != best && v > second[i] {
				second[i] = v
			}
		}
		classes[i] = best
	}
	return c.labels.Decode(classes), top, second
}

// PredictRanked returns Predict's answers with the SVM's decision value of every candidate
// (candidates); rng is not used.
func (c *CharNgram) PredictRanked(_ *rand.Rand, docs [][]string) (authors, candidates []string, scores [][]float64) {
	if c.labels == nil {
		panic("char-ngram-svm: PredictRanked before a successful Fit")
	}
	classes := make([]int, len(docs))
	scores = make([][]float64, len(docs))
	for i, d := range docs {
		scores[i] = c.svm.Decision(c.tfidf.Transform(c.ngrams(d)))
		classes[i] = c.svm.PredictFromDecision(scores[i])
	}
	return c.labels.Decode(classes), slices.Clone(c.labels.Names()), scores
}

// ReadsRawText reports that the attacker's features are character n-grams of the text itself:
// a caller that has the raw text (dptext attribute) passes it as the document's one token, so
// that punctuation, case and line breaks are features, as in the PAN attribution baselines.
func (c *CharNgram) ReadsRawText() bool { return true }

// ngrams returns the character n-grams of the space-joined document, as substrings of it.
func (c *CharNgram) ngrams(doc []string) []string {
	s := strings.Join(doc, " ")
	off := runeOffsets(s, nil)
	runes := len(off) - 1
	out := make([]string, 0, runes*(c.opts.NgramMax-c.opts.NgramMin+1))
	for n := c.opts.NgramMin; n <= c.opts.NgramMax; n++ {
		for i := 0; i+n <= runes; i++ {
			out = append(out, s[off[i]:off[i+n]])
		}
	}
	return out
}
