package runner

import (
	"slices"

	"dptext/corpus"
	"dptext/learn"
	"dptext/protocol"
	"dptext/report"
	"dptext/report/render"
)

// openSetRows are the facts of a set with open-set evaluation texts (the pan protocol): how
// many there are (render.FactOpenSetDocs) and the open-set macro-F1 of a uniform guess among
// its authors (render.FactChanceOpenSetMacroF1), from which the tables' chance row and
// at-chance test are computed. None for a set without open-set texts.
func openSetRows(s *protocol.SetData, row func(string, float64) report.Row) []report.Row {
	open := 0
	written := map[string]int{}
	for _, a := range s.Authors {
		written[a] = 0
	}
	for _, a := range s.EvalAuthors {
		if a == corpus.UnknownAuthor {
			open++
		} else {
			written[a]++
		}
	}
	if open == 0 {
		return nil
	}
	return []report.Row{row(render.FactOpenSetDocs, float64(open)),
		row(render.FactChanceOpenSetMacroF1, render.OpenSetChanceF1(written, len(s.Eval), len(s.Authors)))}
}

// panAnswers reads an attacker's answers as PAN does: a text left unattributed
// (learn.NoAnswer, e.g. pan19-baseline under its reject margin) is answered "<UNK>", right on
// an open-set text and wrong on any other, as in `dptext attribute` and PAN's evaluator.
func panAnswers(pred []string) []string {
	out := slices.Clone(pred)
	for i, p := range out {
		if p == learn.NoAnswer {
			out[i] = corpus.UnknownAuthor
		}
	}
	return out
}
