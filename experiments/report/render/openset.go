package render

import (
	"fmt"
	"math"
	"strings"

	"dptext/experiments/report"
)

// Set facts (`split` rows) of sets with open-set evaluation texts (the pan protocol).
const (
	// FactOpenSetDocs counts a set's evaluation texts whose writer is none of its authors
	// (PAN's open-set texts): no answer naming an author is right on them.
	FactOpenSetDocs = "open_set_docs"
	// FactChanceOpenSetMacroF1 is the open-set macro-F1 of a uniform guess among the
	// authors (see OpenSetChanceF1).
	FactChanceOpenSetMacroF1 = "chance_open_set_macro_f1"
)

// OpenSetChanceF1 is the open-set macro-F1 (PAN 2019's measure) of a uniform guess among k
// candidates on texts of which texts[c] were written by candidate c (the other texts are
// open-set): with the expected counts of such a guess — n_c/k right of the T/k texts it gives
// candidate c — the F1 of c is 2·n_c / (T + k·n_c), averaged over the candidates with a text.
// It is the measure of the expected confusion matrix (a plug-in baseline), not the mean of the
// measure over guesses. NaN when no candidate wrote a text.
func OpenSetChanceF1(texts map[string]int, total, k int) float64 {
	sum, n := 0.0, 0
	for _, nc := range texts {
		if nc <= 0 {
			continue
		}
		n++
		sum += 2 * float64(nc) / float64(total+k*nc)
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// authorChance is the accuracy of a uniform guess among a set's authors: 1/authors, times
// the share of evaluation texts an author wrote when some are open-set (a guess naming an
// author is wrong on every open-set text).
func authorChance(s *report.Summary, set string) (float64, bool) {
	authors, ok := s.Fact(set, "authors")
	if !ok || authors <= 0 {
		return 0, false
	}
	p := 1 / authors
	if open, ok := s.Fact(set, FactOpenSetDocs); ok {
		docs, ok := s.Fact(set, "eval_docs")
		if !ok || docs <= 0 {
			return 0, false
		}
		p *= (docs - open) / docs
	}
	return p, true
}

// openSetText is the caption's sentence on the sets with open-set texts: their counts, the
// best accuracy an attacker naming an author can reach and the chance levels used.
func (t tables) openSetText() string {
	var parts []string
	for _, set := range t.sets {
		open, ok := t.summary.Fact(set, FactOpenSetDocs)
		docs, ok2 := t.summary.Fact(set, "eval_docs")
		if !ok || !ok2 || docs <= 0 {
			continue
		}
		s := fmt.Sprintf("set %s %s of %s open-set, best attainable accuracy %.3f", set,
			formatValue(FactOpenSetDocs, open), formatValue("eval_docs", docs), (docs-open)/docs)
		if p, ok := authorChance(t.summary, set); ok {
			s += fmt.Sprintf(", chance %.3f", p)
		}
		if f1, ok := t.summary.Fact(set, FactChanceOpenSetMacroF1); ok {
			s += fmt.Sprintf(", chance open-set macro-F1 %.3f", f1)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Open-set texts (written by none of the set's authors) are wrong for every answer naming an author, so a uniform guess among the authors is right on (closed-set texts / all texts) × 1/authors of them — the chance row and the at-chance test use this — and no attacker that always names an author exceeds the closed-set share; the open-set macro-F1 chance is the F1 of a uniform guess's expected counts, 2·n_c/(T + authors·n_c) averaged over the authors who wrote a text: " +
		strings.Join(parts, "; ") + "."
}

// AsWrittenMechanism is the row of a run that scores the attackers on the original texts as
// written (case, stopwords, punctuation and layout kept; trained on the known texts as
// written), beside mechanism "none", which is the normalised text every mechanism takes.
const AsWrittenMechanism = "as-written"

// asWrittenText is the caption's sentence on the as-written row, when the table has one.
func (t tables) asWrittenText() string {
	for _, r := range t.rows {
		if r.Mechanism == AsWrittenMechanism {
			return "Row " + AsWrittenMechanism + ": the attackers that read text without word vectors, trained on the known texts as written and asked about the unknown texts as written — the same stretches of text, with case, stopwords, punctuation and layout kept (an attacker of characters reads the text itself, others its words with their case): how identifiable the original texts are. Row none is the normalised texts every mechanism takes (lowercased, punctuation and stopwords gone), so the step from " + AsWrittenMechanism + " to none is the normaliser's effect and the step from none to a mechanism's row the mechanism's."
		}
	}
	return ""
}
