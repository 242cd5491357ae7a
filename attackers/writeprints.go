package attackers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"dptext/internal/learn"
)

// WritePrintsOptions configure the writeprints-limited attacker.
type WritePrintsOptions struct {
	// Classifier is "svm" (one-vs-rest linear SVM) or "nb" (multinomial naive Bayes).
	Classifier string `toml:"classifier"`
	// TopNgrams is how many letter bigrams and how many letter trigrams (the most frequent in
	// the training texts) become features (≥ 0).
	TopNgrams int `toml:"top_ngrams"`
	// SVM configures the classifier "svm".
	SVM learn.SVMOptions `toml:"svm"`
	// NB configures the classifier "nb".
	NB learn.NBOptions `toml:"nb"`
}

// DefaultWritePrintsOptions are a linear SVM with learn's defaults (C = 1), the top 50 letter
// bigrams and 50 trigrams, and α = 0.01 for naive Bayes.
func DefaultWritePrintsOptions() WritePrintsOptions {
	return WritePrintsOptions{Classifier: "svm", TopNgrams: 50, SVM: learn.DefaultSVMOptions(), NB: learn.DefaultNBOptions()}
}

// WritePrints is the writeprints-limited authorship attacker: the WritePrints feature set
// without part-of-speech features (no tagger; tables should name it "writeprints-limited").
// A document's features are its StyleVector followed by the rates of the TopNgrams most
// frequent training letter bigrams and trigrams (n-grams of letters inside a word, lowercased,
// each divided by the document's number of n-grams of that order). Each feature is min-max
// scaled on the training texts, x' = max(0, (x − min) / (max − min)); features constant over
// the training texts (on normalised tokens: uppercase, most punctuation, most function words)
// are dropped. The scaled vectors train a linear SVM or multinomial naive Bayes.
type WritePrints struct {
	opts     WritePrintsOptions
	labels   *learn.Labels
	bigrams  map[string]int
	trigrams map[string]int
	kept     []int     // raw feature index of every scaled feature
	lo, span []float64 // per kept feature
	svm      *learn.LinearSVM
	nb       *learn.MultinomialNB
}

// NewWritePrints validates opts and returns an unfitted attacker.
func NewWritePrints(opts WritePrintsOptions) (*WritePrints, error) {
	w := &WritePrints{opts: opts}
	var err error
	switch opts.Classifier {
	case "svm":
		w.svm, err = learn.NewLinearSVM(opts.SVM)
	case "nb":
		w.nb, err = learn.NewMultinomialNB(opts.NB)
	default:
		return nil, fmt.Errorf("writeprints: classifier = %q: want \"svm\" or \"nb\"", opts.Classifier)
	}
	if err != nil {
		return nil, fmt.Errorf("writeprints: %w", err)
	}
	if opts.TopNgrams < 0 {
		return nil, fmt.Errorf("writeprints: top_ngrams = %d: want ≥ 0", opts.TopNgrams)
	}
	return w, nil
}

// Fit selects the letter n-grams and the feature scaling on docs and trains the classifier
// (rng orders the SVM's coordinate descent).
func (w *WritePrints) Fit(rng *rand.Rand, docs [][]string, labels []string) error {
	if len(docs) != len(labels) || len(docs) == 0 {
		return fmt.Errorf("writeprints: %d documents and %d labels: want equal, non-zero counts", len(docs), len(labels))
	}
	w.bigrams = topLetterNgrams(docs, 2, w.opts.TopNgrams)
	w.trigrams = topLetterNgrams(docs, 3, w.opts.TopNgrams)
	raw := make([][]float64, len(docs))
	for i, d := range docs {
		raw[i] = w.rawFeatures(d)
	}
	w.kept, w.lo, w.span = nil, nil, nil
	for j := range raw[0] {
		lo, hi := raw[0][j], raw[0][j]
		for _, x := range raw[1:] {
			lo, hi = min(lo, x[j]), max(hi, x[j])
		}
		if hi > lo {
			w.kept = append(w.kept, j)
			w.lo = append(w.lo, lo)
			w.span = append(w.span, hi-lo)
		}
	}
	if len(w.kept) == 0 {
		return fmt.Errorf("writeprints: every feature is constant over the %d training texts", len(docs))
	}
	X := make([]learn.Sparse, len(docs))
	for i, x := range raw {
		X[i] = w.scale(x)
	}
	labelSet := learn.NewLabels(labels)
	y, err := labelSet.Encode(labels)
	if err != nil {
		return err
	}
	if w.svm != nil {
		err = w.svm.Fit(rng, X, y, labelSet.Len())
	} else {
		err = w.nb.Fit(X, y, labelSet.Len())
	}
	if err != nil {
		return fmt.Errorf("writeprints: %w", err)
	}
	w.labels = labelSet
	return nil
}

// Predict returns the most likely training author of every document; rng is not used.
func (w *WritePrints) Predict(_ *rand.Rand, docs [][]string) []string {
	if w.labels == nil {
		panic("writeprints: Predict before a successful Fit")
	}
	classes := make([]int, len(docs))
	for i, d := range docs {
		x := w.scale(w.rawFeatures(d))
		if w.svm != nil {
			classes[i] = w.svm.Predict(x)
		} else {
			classes[i] = w.nb.Predict(x)
		}
	}
	return w.labels.Decode(classes)
}

// rawFeatures is StyleVector followed by the selected bigram and trigram rates.
func (w *WritePrints) rawFeatures(doc []string) []float64 {
	v := StyleVector(doc)
	v = append(v, letterNgramRates(doc, 2, w.bigrams)...)
	return append(v, letterNgramRates(doc, 3, w.trigrams)...)
}

func (w *WritePrints) scale(x []float64) learn.Sparse {
	var s learn.Sparse
	for k, j := range w.kept {
		if v := (x[j] - w.lo[k]) / w.span[k]; v > 0 {
			s.Index = append(s.Index, int32(k))
			s.Value = append(s.Value, v)
		}
	}
	return s
}

// eachLetterNgram calls emit with every n-gram of letters inside the lowercased tokens of doc
// (runs of letters; other characters break a run).
func eachLetterNgram(doc []string, n int, emit func(string)) {
	var run []rune
	flush := func() {
		for i := 0; i+n <= len(run); i++ {
			emit(string(run[i : i+n]))
		}
		run = run[:0]
	}
	for _, tok := range doc {
		for _, r := range strings.ToLower(tok) {
			if unicode.IsLetter(r) {
				run = append(run, r)
			} else {
				flush()
			}
		}
		flush()
	}
}

// topLetterNgrams returns the k most frequent letter n-grams of docs (ties: first occurrence)
// mapped to their rank.
func topLetterNgrams(docs [][]string, n, k int) map[string]int {
	count := map[string]int{}
	var order []string
	for _, d := range docs {
		eachLetterNgram(d, n, func(g string) {
			if count[g] == 0 {
				order = append(order, g)
			}
			count[g]++
		})
	}
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	top := make(map[string]int, min(k, len(order)))
	for i, g := range order[:min(k, len(order))] {
		top[g] = i
	}
	return top
}

// letterNgramRates returns, for each selected n-gram in rank order, its count in doc divided
// by doc's number of letter n-grams.
func letterNgramRates(doc []string, n int, selected map[string]int) []float64 {
	v := make([]float64, len(selected))
	var total float64
	eachLetterNgram(doc, n, func(g string) {
		total++
		if i, ok := selected[g]; ok {
			v[i]++
		}
	})
	if total > 0 {
		for i := range v {
			v[i] /= total
		}
	}
	return v
}
