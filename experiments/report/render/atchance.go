package render

import (
	"dptext/experiments/report"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mathext"
)

// ChanceAlpha is the significance level of the at-chance check: a scorer is flagged when a
// one-sided exact binomial test does not reject, at this level, that its accuracy on the
// original texts is chance.
const ChanceAlpha = 0.05

// ChanceMark marks, in the tables, the `none` entry of a column whose scorer is at chance.
const ChanceMark = "†"

// AtChance is a column of one set whose scorer, on the original texts (mechanism "none"), is
// not significantly better than a uniform guess: whatever the mechanisms do to it says nothing.
type AtChance struct {
	Set, Label, Scorer string
	// Correct and Total are the mean counts per repeat on mechanism "none"; Chance is the
	// probability of a right guess (1/topics; 1/authors, times the closed-set share of the
	// evaluation texts where some are open-set: a guess naming an author cannot be right on
	// those).
	Correct, Total, Chance float64
	// P is the one-sided p-value P(X ≥ Correct) for X ~ Binomial(Total, Chance).
	P float64
}

// binomialUpper is P(X ≥ k) for X ~ Binomial(n, p), through the regularised incomplete beta
// function I_p(k, n−k+1), which extends it to the non-integer mean counts over repeats.
func binomialUpper(k, n, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	}
	return mathext.RegIncBeta(k, n-k+1, p)
}

// atChance lists the author and topic columns that are at chance on mechanism "none" in some
// set. The test is on the mean counts per repeat, as if they were one draw of Total
// predictions. Under chance the mean over repeats varies at most as much as one draw, so a
// scorer at chance is wrongly called above chance with probability at most ChanceAlpha; the
// price is power: a scorer slightly above chance may be flagged where a test pooling
// independent repeats would not flag it.
func atChance(s *report.Summary, l Layout) []AtChance {
	var out []AtChance
	for _, set := range s.Sets() {
		for _, col := range l.Columns {
			if col.Task != report.TaskAuthor && col.Task != report.TaskTopic {
				continue
			}
			k := report.Key{Set: set, Mechanism: "none", Scorer: col.Scorer, Metric: report.MetricCorrect}
			correct, ok1 := s.Cell(k)
			k.Metric = report.MetricTotal
			total, ok2 := s.Cell(k)
			p, ok3 := chance(s, set, col.Scorer, col.Task, report.MetricAccuracy)
			if !ok1 || !ok2 || !ok3 || total.Mean <= 0 {
				continue
			}
			a := AtChance{Set: set, Label: col.Label, Scorer: col.Scorer, Correct: correct.Mean, Total: total.Mean, Chance: p}
			a.P = binomialUpper(a.Correct, a.Total, a.Chance)
			if a.P >= ChanceAlpha {
				out = append(out, a)
			}
		}
	}
	return out
}

// String describes the flag, e.g. "set 20, DRtopic (fasttext): 6.2 of 20 right, chance 0.5, p = 0.98".
func (a AtChance) String() string {
	return fmt.Sprintf("set %s, %s (%s): %s of %s right on the original texts, chance %s, one-sided p = %.3g",
		a.Set, a.Label, a.Scorer, trimFloat(a.Correct), trimFloat(a.Total), trimFloat(a.Chance), a.P)
}

func trimFloat(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.3g", v), ".0") }

// chanceText is the caption's sentence on the at-chance check.
func chanceText(flags []AtChance) string {
	test := fmt.Sprintf("one-sided exact binomial test of the mean counts per repeat on mechanism none against chance, α = %g", ChanceAlpha)
	if len(flags) == 0 {
		return "Every author and topic column is significantly above chance on the original texts (" + test + ")."
	}
	var parts []string
	for _, f := range flags {
		parts = append(parts, f.String())
	}
	return fmt.Sprintf("%s At chance before any mechanism (%s), so their rows say nothing about what a mechanism keeps or hides: %s.",
		ChanceMark, test, strings.Join(parts, "; "))
}

// AtChanceLines returns one line per column that is at chance on the original texts (see
// atChance), for a run's log.
func AtChanceLines(rows []report.Row, l Layout) ([]string, error) {
	s, err := report.Aggregate(rows, l.scorerOrder(), l.Level)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, f := range atChance(s, l) {
		lines = append(lines, fmt.Sprintf("at chance before any mechanism (α = %g): %s", ChanceAlpha, f))
	}
	return lines, nil
}
