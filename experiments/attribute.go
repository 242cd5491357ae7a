package experiments

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"dptext/corpus"
	"dptext/learn"
	"dptext/mechanisms"
	"dptext/rngs"
	"dptext/text"
)

// AttributeOptions configure Attribute.
type AttributeOptions struct {
	Input, Output string
	// NewAttacker makes a fresh attacker for each problem.
	NewAttacker func() (learn.Classifier, error)
	// Mechanism, when non-nil, privatises every unknown text first (its content words, as
	// `dptext obfuscate` does; stopwords and punctuation are kept).
	Mechanism mechanisms.Mechanism
	Seed      uint64
}

// ProblemResult summarises one attributed PAN problem.
type ProblemResult struct {
	Name              string
	Candidates        int
	Unknown           int
	Correct, Labelled int // Labelled: unknown texts with ground truth
	Skipped           corpus.Skipped
}

// Accuracy is Correct/Labelled, or NaN without ground truth.
func (p ProblemResult) Accuracy() float64 {
	if p.Labelled == 0 {
		return math.NaN()
	}
	return float64(p.Correct) / float64(p.Labelled)
}

// scoringClassifier is an attacker that also says how sure it is (koppel11: share of wins).
type scoringClassifier interface {
	PredictScores(rng *rand.Rand, docs [][]string) ([]string, []float64)
}

// attributionTokens are the words of a PAN text as attackers see them: every token, case kept
// (function words and capitals are evidence of style).
func attributionTokens(s string) []string { return text.Words(s) }

// Attribute reads a PAN attribution problem set, trains the attacker on each problem's
// candidates, answers its unknown texts in the layout's own format in opts.Output, and
// returns per-problem counts.
func Attribute(opts AttributeOptions) ([]ProblemResult, error) {
	problems, err := corpus.ReadPANProblems(opts.Input)
	if err != nil {
		return nil, err
	}
	var results []ProblemResult
	for _, p := range problems {
		clf, err := opts.NewAttacker()
		if err != nil {
			return nil, err
		}
		var docs [][]string
		var labels []string
		for _, c := range p.Candidates {
			for _, k := range c.Known {
				docs = append(docs, attributionTokens(k.Text))
				labels = append(labels, c.Name)
			}
		}
		if err := clf.Fit(rngs.New(opts.Seed, "attribute/fit/"+p.Name), docs, labels); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Dir, err)
		}
		unknown := make([][]string, len(p.Unknown))
		for i, u := range p.Unknown {
			raw := u.Text
			if opts.Mechanism != nil {
				rng := rngs.New(opts.Seed, "attribute/privatise/"+p.Name+"/"+u.File)
				if raw, err = text.RewriteWords(raw, func(w []string) []string { return opts.Mechanism.Apply(rng, w) }); err != nil {
					return nil, fmt.Errorf("%s: %s: the mechanism must keep word positions to rewrite a text: %w", p.Dir, u.File, err)
				}
			}
			unknown[i] = attributionTokens(raw)
		}
		rng := rngs.New(opts.Seed, "attribute/predict/"+p.Name)
		pred := clf.Predict(rng, unknown)
		scores := make([]float64, len(pred))
		for i := range scores {
			scores[i] = 1
		}
		if sc, ok := clf.(scoringClassifier); ok {
			pred, scores = sc.PredictScores(rngs.New(opts.Seed, "attribute/predict/"+p.Name), unknown)
		}
		res := ProblemResult{Name: p.Name, Candidates: len(p.Candidates), Unknown: len(p.Unknown), Skipped: p.Skipped}
		answers := make([]corpus.Answer, len(pred))
		for i, a := range pred {
			if a == learn.NoAnswer {
				a = ""
			}
			answers[i] = corpus.Answer{UnknownText: p.Unknown[i].File, Author: a, Score: scores[i]}
			if p.Unknown[i].Author != "" {
				res.Labelled++
				if a == p.Unknown[i].Author {
					res.Correct++
				}
			}
		}
		if err := corpus.WriteAnswers(p, opts.Output, answers); err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

// FormatResults prints one line per problem and the overall accuracy where ground truth exists.
func FormatResults(results []ProblemResult) string {
	var b strings.Builder
	correct, labelled := 0, 0
	for _, r := range results {
		fmt.Fprintf(&b, "%s: %d candidates, %d unknown texts", r.Name, r.Candidates, r.Unknown)
		if r.Labelled > 0 {
			fmt.Fprintf(&b, ", accuracy %d/%d = %.3f", r.Correct, r.Labelled, r.Accuracy())
		}
		if n := r.Skipped.Total(); n > 0 {
			fmt.Fprintf(&b, " (%d skipped: %s)", n, r.Skipped)
		}
		b.WriteString("\n")
		correct += r.Correct
		labelled += r.Labelled
	}
	if labelled > 0 {
		fmt.Fprintf(&b, "overall accuracy %d/%d = %.3f\n", correct, labelled, float64(correct)/float64(labelled))
	}
	return b.String()
}
