package runner

import (
	"fmt"
	"slices"

	"dptext/corpus"
	"dptext/experiments/protocol"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/report/render"
	"dptext/experiments/runconfig"
	"dptext/internal/learn"
	"dptext/internal/rngs"
	"dptext/internal/text"
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

// asWrittenFormats are the corpus formats whose runs get the as-written rows: PAN
// collections, in both protocols. The protocols keep the raw stretches of every corpus; the
// other formats are left out for now so that the runs of the other corpora (and the CI
// baseline) keep their rows.
var asWrittenFormats = map[string]bool{"pan": true}

// rawTextReader is an attacker whose features are characters of the text itself
// (attackers.CharNgram, attackers.PAN19): it gets the text as written as one token.
type rawTextReader interface{ ReadsRawText() bool }

// asWrittenRows scores, in the cell of mechanism "none", every author attacker that reads text
// without word vectors on the set's texts as written (protocol.SetData.KnownRaw and EvalRaw):
// trained on the known texts as written and asked about the unknown ones, an attacker of
// characters given the text itself, any other its words with their case. The rows are those
// of a mechanism render.AsWrittenMechanism, so that the table shows, beside the normalised
// texts' row "none", how identifiable the originals are: the step from as-written to none is
// the normaliser's, from none to a mechanism's row the mechanism's. None where the set keeps
// no raw text, the cell's mechanism is not the row "none" (the identity without a label; a
// labelled one such as table1.toml's none-bag gets none), or the corpus is not a PAN
// collection (asWrittenFormats).
func (r *runner) asWrittenRows(c cell, set *protocol.SetData) ([]report.Row, error) {
	if set.KnownRaw == nil || r.cfg.Mechanisms[c.mech].ID() != "none" || c.eps.Set() || !asWrittenFormats[r.cfg.Corpus.Format] {
		return nil, nil
	}
	var rows []report.Row
	for si, sc := range r.cfg.Scorers {
		if registry.Scorers[sc.Name].Task != registry.TaskAuthor {
			continue
		}
		o, err := r.cfg.ScorerOptions(si)
		if err != nil {
			return nil, err
		}
		if o.Classifier == nil || o.Classifier.Needs().Vectors {
			continue
		}
		clf, err := o.Classifier.Build(r.env(set))
		if err != nil {
			return nil, fmt.Errorf("scorer %s: %w", sc.ID(), err)
		}
		tokens := func(raw []string) [][]string {
			out := make([][]string, len(raw))
			for i, s := range raw {
				if rr, ok := clf.(rawTextReader); ok && rr.ReadsRawText() {
					out[i] = []string{s}
				} else {
					out[i] = text.Words(s)
				}
			}
			return out
		}
		path := r.cellPath(c) + "/scorer=" + sc.ID()
		if err := clf.Fit(rngs.New(uint64(r.cfg.Seed), "as-written/fit/"+path), tokens(set.KnownRaw), set.KnownAuthors); err != nil {
			return nil, fmt.Errorf("scorer %s on set %s, texts as written: %w", sc.ID(), set.Name, err)
		}
		pred := clf.Predict(rngs.New(uint64(r.cfg.Seed), "as-written/predict/"+path), tokens(set.EvalRaw))
		if r.cfg.Protocol.Kind == runconfig.ProtocolPAN {
			pred = panAnswers(pred)
		}
		s := learn.Score(set.EvalAuthors, pred)
		row := func(metric string, v float64) report.Row {
			return report.Row{Set: set.Name, Mechanism: render.AsWrittenMechanism, Epsilon: c.eps, Repeat: c.rep, Scorer: sc.ID(), Metric: metric, Value: v}
		}
		rows = append(rows, row(report.MetricCorrect, float64(s.Correct)), row(report.MetricTotal, float64(s.Total)),
			row(report.MetricAccuracy, s.Accuracy), row(report.MetricMacroPrecision, s.MacroPrecision),
			row(report.MetricMacroRecall, s.MacroRecall), row(report.MetricMacroF1, s.MacroF1))
		if r.cfg.Protocol.Kind == runconfig.ProtocolPAN {
			rows = append(rows, row(report.MetricOpenSetMacroF1, corpus.PANRound(learn.OpenSetMacroF1(set.EvalAuthors, pred, corpus.UnknownAuthor))))
		}
	}
	return rows, nil
}
