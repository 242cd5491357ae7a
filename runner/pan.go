package runner

import (
	"dptext/corpus"
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
