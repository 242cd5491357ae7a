// Package attribution answers PAN authorship-attribution problems: an attacker trained on each
// problem's known texts names the author of every unknown text (optionally privatised first by
// a mechanism), written in the PAN answer format and scored against the ground truth when
// present (dptext attribute).
package attribution

import (
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"dptext/corpus"
	"dptext/internal/learn"
	"dptext/internal/rngs"
	"dptext/internal/text"
	"dptext/mechanisms"
)

// Reject rules of AttributeOptions.Reject.
const (
	// RejectNone answers every unknown text with the attacker's best candidate.
	RejectNone = "none"
	// RejectPAN19 is the open-set rule of the PAN 2019 attribution baseline: the attacker's
	// probabilities are calibrated as scikit-learn's CalibratedClassifierCV does (sigmoid,
	// 3 folds; see attackers.CharNgram.CalibrateFit), the answer is the most probable
	// candidate, and "<UNK>" when the two largest probabilities differ by less than the
	// threshold (0.1 in the baseline). Needs an attacker that calibrates (char-ngram-svm, pan19-baseline).
	RejectPAN19 = "pan19"
	// RejectScoreMargin answers "<UNK>" when the best candidate's raw score exceeds the
	// runner-up's by less than the threshold: an SVM decision value for char-ngram-svm, a share
	// of wins for koppel11. Not the PAN 2019 rule: the scores are not probabilities.
	RejectScoreMargin = "score-margin"
	// RejectScore answers "<UNK>" when the best candidate's raw score is below the threshold.
	RejectScore = "score"
)

// RejectRule decides when Attribute leaves an unknown text unattributed ("<UNK>").
type RejectRule struct {
	Rule      string  // RejectNone (or ""), RejectPAN19, RejectScoreMargin or RejectScore
	Threshold float64 // on calibrated probabilities (pan19) or the attacker's raw scores
}

// Validate checks the rule and its threshold.
func (r RejectRule) Validate() error {
	switch r.Rule {
	case "", RejectNone:
		return nil
	case RejectPAN19, RejectScoreMargin, RejectScore:
		if math.IsNaN(r.Threshold) || math.IsInf(r.Threshold, 0) || r.Threshold < 0 {
			return fmt.Errorf("reject threshold %v: want a finite number ≥ 0", r.Threshold)
		}
		if r.Rule == RejectPAN19 && r.Threshold > 1 {
			return fmt.Errorf("reject threshold %v: the pan19 rule compares probabilities: want a number in [0, 1] (the baseline's is 0.1)", r.Threshold)
		}
		return nil
	case "margin":
		return fmt.Errorf(`reject rule "margin" is now named for what it is: %q (the PAN 2019 baseline's rule on calibrated probabilities, char-ngram-svm) or %q (a margin on the attacker's raw scores)`, RejectPAN19, RejectScoreMargin)
	}
	return fmt.Errorf("reject rule %q: want %q, %q, %q or %q", r.Rule, RejectNone, RejectPAN19, RejectScoreMargin, RejectScore)
}

// AttributeOptions configure Attribute.
type AttributeOptions struct {
	Input, Output string
	// Language keeps only the problems in that language (empty: all).
	Language string
	// NewAttacker makes a fresh attacker for each problem.
	NewAttacker func() (learn.Classifier, error)
	// Reject leaves texts unattributed by a rule on the attacker's scores.
	Reject RejectRule
	// Mechanism, when non-nil, privatises every unknown text first (its content words, as
	// `dptext obfuscate` does; stopwords and punctuation are kept).
	Mechanism mechanisms.Mechanism
	Seed      uint64
	// Force replaces answer files already in Output (another attacker's, an earlier run's);
	// without it Attribute refuses them before answering anything.
	Force bool
	// Progress, when non-nil, receives a line per problem and, while a mechanism privatises
	// texts, about every ten seconds.
	Progress io.Writer
}

// ProblemResult summarises one attributed PAN problem.
type ProblemResult struct {
	Name       string
	Candidates int
	// Unknown counts the unknown texts, all answered; OpenSet those whose true author is <UNK>.
	Unknown, OpenSet int
	// Correct of Labelled (unknown texts with ground truth) were answered right; an open-set
	// text is right when left unattributed.
	Correct, Labelled int
	// Rejected counts the texts answered "<UNK>".
	Rejected int
	// MacroF1 is the PAN 2018/2019 evaluator's measure (NaN without ground truth): F1 per
	// candidate that is the true author of some unknown text, averaged; "<UNK>" is no class.
	MacroF1 float64
	// Measure names MacroF1 as PAN does for the problem's layout.
	Measure string
	Skipped corpus.Skipped
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

// rankingClassifier is an attacker that scores its best and second-best candidate.
type rankingClassifier interface {
	PredictTopTwo(rng *rand.Rand, docs [][]string) (authors []string, top, second []float64)
}

// rawTextReader is an attacker whose features are characters of the text itself (see
// attackers.CharNgram.ReadsRawText).
type rawTextReader interface{ ReadsRawText() bool }

// calibratingClassifier is an attacker that can estimate calibrated probabilities of its
// candidates (the pan19 reject rule).
type calibratingClassifier interface {
	CalibrateFit(rng *rand.Rand, docs [][]string, labels []string) error
	Probabilities(docs [][]string) ([][]float64, error)
	Candidates() []string
}

// attributionTokens are a PAN text as the attacker sees it: the raw text as one token for an
// attacker that reads characters (punctuation, case and line breaks are evidence of style, as
// in the PAN baselines), else its words with their case kept.
func attributionTokens(clf learn.Classifier, s string) []string {
	if r, ok := clf.(rawTextReader); ok && r.ReadsRawText() {
		return []string{s}
	}
	return text.Words(s)
}

// Attribute reads a PAN attribution problem set, trains the attacker on each problem's
// candidates, answers every unknown text (open-set ones included) in the layout's own format
// in opts.Output, and returns per-problem counts and the official measure.
func Attribute(opts AttributeOptions) ([]ProblemResult, error) {
	if err := opts.Reject.Validate(); err != nil {
		return nil, err
	}
	problems, langSkipped, err := corpus.ReadPANProblems(opts.Input, corpus.PANOptions{Language: opts.Language})
	if err != nil {
		return nil, err
	}
	progress := func(format string, args ...any) {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "attribute: "+format+"\n", args...)
		}
	}
	if n := langSkipped.Total(); n > 0 {
		progress("skipped %d problem(s): %s", n, langSkipped)
	}
	if err := checkAnswerFiles(problems, opts); err != nil {
		return nil, err
	}
	var results []ProblemResult
	for pi, p := range problems {
		res, err := attributeProblem(opts, p, func(format string, args ...any) {
			progress("%s (%d of %d): "+format, append([]any{p.Name, pi + 1, len(problems)}, args...)...)
		})
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

// checkAnswerFiles fails, unless opts.Force, when an answer file of one of problems is already
// in opts.Output, listing them: answers of another attacker or an earlier run are not replaced
// silently. Two problems answered into one file (two older-layout problems, both answers.json)
// are refused with or without Force.
func checkAnswerFiles(problems []corpus.PANProblem, opts AttributeOptions) error {
	var existing []string
	owner := map[string]string{}
	for _, p := range problems {
		name, err := corpus.AnswersFile(p)
		if err != nil {
			return err
		}
		if other, ok := owner[name]; ok {
			return fmt.Errorf("problems %s and %s would both write their answers to %s: attribute them one at a time, each with its own --output", other, p.Dir, name)
		}
		owner[name] = p.Dir
		path := filepath.Join(opts.Output, name)
		if _, err := os.Lstat(path); err == nil {
			existing = append(existing, path)
		}
	}
	if len(existing) > 0 && !opts.Force {
		return fmt.Errorf("%s already holds %d answer file(s) of these problems (%s): another attacker's or an earlier run's answers are not replaced without --force; give another --output or add --force", opts.Output, len(existing), strings.Join(existing, ", "))
	}
	return nil
}

func attributeProblem(opts AttributeOptions, p corpus.PANProblem, progress func(string, ...any)) (ProblemResult, error) {
	clf, err := opts.NewAttacker()
	if err != nil {
		return ProblemResult{}, err
	}
	var docs [][]string
	var labels []string
	for _, c := range p.Candidates {
		for _, k := range c.Known {
			docs = append(docs, attributionTokens(clf, k.Text))
			labels = append(labels, c.Name)
		}
	}
	if len(docs) == 0 {
		return ProblemResult{}, fmt.Errorf("%s: no known text of any candidate", p.Dir)
	}
	if err := clf.Fit(rngs.New(opts.Seed, "attribute/fit/"+p.Name), docs, labels); err != nil {
		return ProblemResult{}, fmt.Errorf("%s: %w", p.Dir, err)
	}
	if opts.Reject.Rule == RejectPAN19 {
		cc, ok := clf.(calibratingClassifier)
		if !ok {
			return ProblemResult{}, fmt.Errorf("--reject %s needs calibrated probabilities, which this attacker does not give (char-ngram-svm and pan19-baseline do; --reject %s applies a margin to raw scores)", RejectPAN19, RejectScoreMargin)
		}
		if err := cc.CalibrateFit(rngs.New(opts.Seed, "attribute/calibrate/"+p.Name), docs, labels); err != nil {
			return ProblemResult{}, fmt.Errorf("%s: %w", p.Dir, err)
		}
	}
	unknown := make([][]string, len(p.Unknown))
	last := time.Now()
	for i, u := range p.Unknown {
		raw := u.Text
		if opts.Mechanism != nil {
			rng := rngs.New(opts.Seed, "attribute/privatise/"+p.Name+"/"+u.File)
			if raw, err = text.RewriteWords(raw, func(w []string) []string { return opts.Mechanism.Apply(rng, w) }); err != nil {
				return ProblemResult{}, fmt.Errorf("%s: %s: the mechanism must keep word positions to rewrite a text: %w", p.Dir, u.File, err)
			}
			if time.Since(last) >= 10*time.Second {
				progress("privatised %d of %d unknown texts", i+1, len(p.Unknown))
				last = time.Now()
			}
		}
		unknown[i] = attributionTokens(clf, raw)
	}
	pred, top, second, err := predictRanked(clf, opts, p.Name, unknown)
	if err != nil {
		return ProblemResult{}, fmt.Errorf("%s: %w", p.Dir, err)
	}
	res := ProblemResult{Name: p.Name, Candidates: len(p.Candidates), Unknown: len(p.Unknown), Skipped: p.Skipped,
		Measure: "macro-F1", MacroF1: math.NaN()}
	answers := make([]corpus.Answer, len(pred))
	var truth, answered []string
	for i, a := range pred {
		reject := a == learn.NoAnswer
		switch opts.Reject.Rule {
		case RejectPAN19, RejectScoreMargin:
			reject = reject || top[i]-second[i] < opts.Reject.Threshold
		case RejectScore:
			reject = reject || top[i] < opts.Reject.Threshold
		}
		if reject {
			a = ""
			res.Rejected++
		}
		answers[i] = corpus.Answer{UnknownText: p.Unknown[i].File, Author: a, Score: top[i]}
		if t := p.Unknown[i].Author; t != "" {
			if t == corpus.UnknownAuthor {
				res.OpenSet++
			}
			out := a
			if out == "" {
				out = corpus.UnknownAuthor
			}
			truth, answered = append(truth, t), append(answered, out)
			res.Labelled++
			if out == t {
				res.Correct++
			}
		}
	}
	if res.OpenSet > 0 {
		res.Measure = "open-set macro-F1"
	}
	if res.Labelled > 0 {
		res.MacroF1 = candidateMacroF1(truth, answered)
	}
	if err := corpus.WriteAnswers(p, opts.Output, answers); err != nil {
		return ProblemResult{}, err
	}
	progress("answered %d unknown texts (%d left unattributed)", len(answers), res.Rejected)
	return res, nil
}

// predictRanked returns the attacker's answers with the best and runner-up scores where the
// attacker gives them (else 1 and NaN); a reject rule needs them. Under the pan19 rule the
// answers and scores are the calibrated probabilities' (the most probable candidate).
func predictRanked(clf learn.Classifier, opts AttributeOptions, problem string, unknown [][]string) (pred []string, top, second []float64, err error) {
	rng := rngs.New(opts.Seed, "attribute/predict/"+problem)
	if opts.Reject.Rule == RejectPAN19 {
		cc := clf.(calibratingClassifier)
		probs, err := cc.Probabilities(unknown)
		if err != nil {
			return nil, nil, nil, err
		}
		names := cc.Candidates()
		for _, p := range probs {
			best, sec := topTwo(p)
			pred, top = append(pred, names[best]), append(top, p[best])
			s := math.Inf(-1)
			if sec >= 0 {
				s = p[sec]
			}
			second = append(second, s)
		}
		return pred, top, second, nil
	}
	if rc, ok := clf.(rankingClassifier); ok {
		pred, top, second = rc.PredictTopTwo(rng, unknown)
		return pred, top, second, nil
	}
	if opts.Reject.Rule != "" && opts.Reject.Rule != RejectNone {
		return nil, nil, nil, fmt.Errorf("the attacker gives no scores for its candidates, so --reject %s cannot apply (koppel11, char-ngram-svm and pan19-baseline do)", opts.Reject.Rule)
	}
	if sc, ok := clf.(scoringClassifier); ok {
		pred, top = sc.PredictScores(rng, unknown)
	} else {
		pred = clf.Predict(rng, unknown)
		top = make([]float64, len(pred))
		for i := range top {
			top[i] = 1
		}
	}
	second = make([]float64, len(pred))
	for i := range second {
		second[i] = math.NaN()
	}
	return pred, top, second, nil
}

// topTwo returns the indices of the largest and second-largest values (the lower index on
// ties; second is -1 for one value).
func topTwo(p []float64) (best, second int) {
	best, second = 0, -1
	for k := 1; k < len(p); k++ {
		switch {
		case p[k] > p[best]:
			best, second = k, best
		case second < 0 || p[k] > p[second]:
			second = k
		}
	}
	return best, second
}

// candidateMacroF1 is the measure of the PAN 2018 and 2019 attribution evaluators
// (learn.OpenSetMacroF1, "<UNK>" the open-set label). An unattributed text is answered "<UNK>".
func candidateMacroF1(truth, pred []string) float64 {
	return learn.OpenSetMacroF1(truth, pred, corpus.UnknownAuthor)
}

// FormatResults prints one line per problem — accuracy and the layout's official measure where
// ground truth exists — and the overall accuracy (pooled) and mean measure over problems (as
// PAN ranks submissions: the mean of the per-problem measures rounded to 3 decimals,
// corpus.PANRound, as PAN's evaluator computes its overall score).
func FormatResults(results []ProblemResult) string {
	var b strings.Builder
	correct, labelled, nF1 := 0, 0, 0
	sumF1 := 0.0
	measures := map[string]bool{}
	for _, r := range results {
		fmt.Fprintf(&b, "%s: %d candidates, %d unknown texts (%d open-set), %d unattributed", r.Name, r.Candidates, r.Unknown, r.OpenSet, r.Rejected)
		if r.Labelled > 0 {
			fmt.Fprintf(&b, "; accuracy %d/%d = %.3f, %s %.3f", r.Correct, r.Labelled, r.Accuracy(), r.Measure, corpus.PANRound(r.MacroF1))
		}
		if n := r.Skipped.Total(); n > 0 {
			fmt.Fprintf(&b, " (%d skipped: %s)", n, r.Skipped)
		}
		b.WriteString("\n")
		correct += r.Correct
		labelled += r.Labelled
		if !math.IsNaN(r.MacroF1) {
			sumF1 += corpus.PANRound(r.MacroF1)
			nF1++
			measures[r.Measure] = true
		}
	}
	if labelled > 0 {
		fmt.Fprintf(&b, "overall: accuracy %d/%d = %.3f", correct, labelled, float64(correct)/float64(labelled))
		if nF1 > 0 {
			fmt.Fprintf(&b, ", mean %s over %d problems = %.3f (of the per-problem values rounded to %d decimals, as PAN's evaluator averages them)",
				strings.Join(slices.Sorted(maps.Keys(measures)), " / "), nF1, corpus.PANRound(sumF1/float64(nF1)), corpus.PANDecimals)
		}
		b.WriteString("\n")
	}
	return b.String()
}
