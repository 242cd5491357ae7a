// Package learn holds what authorship attackers and topic classifiers share: the Classifier
// contract, sparse feature vectors, linear models and the scores every scorer reports.
package learn

import (
	"math/rand/v2"
	"sort"
)

// A Classifier learns a map from documents (normalised token sequences) to labels. An
// authorship attacker is a Classifier whose labels are authors; a topic classifier's labels are
// topics. All randomness comes from the generators handed to Fit and Predict, so equal states
// give equal predictions.
type Classifier interface {
	// Fit trains on docs with their labels (len(docs) == len(labels)).
	Fit(rng *rand.Rand, docs [][]string, labels []string) error
	// Predict returns one label per document. A closed-set classifier always answers one of the
	// training labels; an open-set one may answer NoAnswer.
	Predict(rng *rand.Rand, docs [][]string) []string
}

// NoAnswer is the label an open-set classifier gives when no candidate is good enough. It is
// always counted as wrong.
const NoAnswer = "<none>"

// Scores are the counts and macro-averaged scores of predictions against the truth.
type Scores struct {
	Correct, Total              int
	Accuracy                    float64
	MacroPrecision, MacroRecall float64
	MacroF1                     float64
}

// Score compares predictions with the truth. Macro averages run over the classes that occur in
// truth (a class never predicted has precision 0); NoAnswer is never a class.
func Score(truth, pred []string) Scores {
	if len(truth) != len(pred) {
		panic("learn.Score: truth and predictions differ in length")
	}
	s := Scores{Total: len(truth)}
	tp := map[string]int{}
	predicted := map[string]int{}
	actual := map[string]int{}
	for i, t := range truth {
		actual[t]++
		predicted[pred[i]]++
		if pred[i] == t {
			s.Correct++
			tp[t]++
		}
	}
	if s.Total == 0 {
		return s
	}
	s.Accuracy = float64(s.Correct) / float64(s.Total)
	classes := make([]string, 0, len(actual))
	for c := range actual {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		var p, r, f float64
		if predicted[c] > 0 {
			p = float64(tp[c]) / float64(predicted[c])
		}
		r = float64(tp[c]) / float64(actual[c])
		if p+r > 0 {
			f = 2 * p * r / (p + r)
		}
		s.MacroPrecision += p
		s.MacroRecall += r
		s.MacroF1 += f
	}
	n := float64(len(classes))
	s.MacroPrecision /= n
	s.MacroRecall /= n
	s.MacroF1 /= n
	return s
}
