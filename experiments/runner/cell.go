package runner

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"dptext/corpus"
	"dptext/experiments/protocol"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/internal/learn"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/syntf"
)

// privatise applies the mechanism of c to docs, each document with its own stream, or reads
// the result of an earlier identical application from the private cache.
func (r *runner) privatise(ctx context.Context, clock *cellClock, m mechanisms.Mechanism, c cell, what string, docs [][]string) ([][]string, error) {
	start := time.Now()
	var key string
	if r.cache != nil {
		key = r.privateKey(c, what, docs)
		r.cacheUses.Add(1)
		if out, ok := r.cache.load(key, len(docs)); ok {
			r.cacheHits.Add(1)
			clock.add(&r.spent, "private cache", start)
			return out, nil
		}
	}
	defer clock.add(&r.spent, "mechanisms", start)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out [][]string
	if ds, ok := m.(mechanisms.DrawSharer); ok {
		// Draws shared with the config's other entries of the mechanism (draws.go).
		var err error
		if out, err = r.releaseShared(ds, c, what, docs); err != nil {
			return nil, err
		}
	} else {
		base := r.cellPath(c)
		gens := make([]*rand.Rand, len(docs))
		for i := range docs {
			gens[i] = rngs.New(uint64(r.cfg.Seed), fmt.Sprintf("%s/%s=%d", base, what, i))
		}
		// Every document with its own stream, all in one call: a BatchMechanism shares the
		// work that depends on a word only across the documents, with the outputs of one call
		// each.
		var err error
		if out, err = mechanisms.PrivatizeBatch(m, gens, docs); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", base, what, err)
		}
	}
	for _, d := range out {
		clock.words += len(d)
	}
	if r.cache != nil {
		if err := r.cache.store(key, out); err != nil {
			// The cache is optional: a full or read-only data disk must not fail the run.
			if r.cache.logf != nil {
				r.cache.logf("private cache: could not write %s (%v); going on without caching it", r.cache.path(key), err)
			}
		}
	}
	return out, nil
}

func (r *runner) cellPath(c cell) string { return c.path(r.cfg, r.sets) }

func (r *runner) runCell(ctx context.Context, c cell) error {
	set := r.sets[c.set].Draw(c.rep)
	// The cell's own clock (recorded in its file): the run's total (r.spent) counts a shared
	// mechanism or classifier once, where it is built; the cell counts its wait for it.
	clock := &cellClock{}
	start := time.Now()
	m, err := r.mechanism(c)
	clock.add(nil, "build mechanisms", start)
	if err != nil {
		return err
	}
	private, err := r.privatise(ctx, clock, m, c, "doc", set.Eval)
	if err != nil {
		return err
	}
	row := func(scorer, metric string, v float64) report.Row {
		return report.Row{Set: set.Name, Mechanism: r.cfg.Mechanisms[c.mech].ID(), Epsilon: c.eps, Repeat: c.rep,
			Scorer: scorer, Metric: metric, Value: v}
	}
	var rows []report.Row
	var preds []rundir.Prediction
	start = time.Now()
	prows, err := privacyRows(m, set, private, row, r.env(set), r.cfg)
	if err != nil {
		return err
	}
	clock.add(&r.spent, "privacy and diagnostics", start)
	rows = append(rows, prows...)
	drows, dpreds, err := r.distinguishRows(ctx, clock, m, c, set, row)
	if err != nil {
		return err
	}
	rows, preds = append(rows, drows...), append(preds, dpreds...)
	var privateKnown [][]string
	for si, sc := range r.cfg.Scorers {
		entry := registry.Scorers[sc.Name]
		if entry.Task == registry.TaskUtility {
			pm, err := r.pairMetric(si, set)
			if err != nil {
				return err
			}
			// Documents the measure cannot score (NaN: no in-vocabulary word) are left out of
			// the mean and counted.
			start, sum, n := time.Now(), 0.0, 0
			for i := range private {
				v := pm.Measure(set.Eval[i], private[i])
				if !math.IsNaN(v) {
					sum, n = sum+v, n+1
				}
				preds = append(preds, rundir.Prediction{Scorer: sc.ID(), Document: documentID(set, i), Item: i, Author: set.EvalAuthors[i],
					Value: strconv.FormatFloat(v, 'g', -1, 64)})
			}
			clock.add(&r.spent, "utility", start)
			if n == 0 {
				// No pair scored: the mean is undefined, and results.csv holds no NaN. The
				// unscored row says why the cell has no mean (the tables show "–").
				r.logf("%s: scorer %s scored none of the %d evaluation documents (no in-vocabulary word, or a zero centred mean): its mean is left out, unscored = %d",
					r.cellPath(c), sc.ID(), len(private), len(private))
			} else {
				rows = append(rows, row(sc.ID(), report.MetricMean, sum/float64(n)))
			}
			rows = append(rows, row(sc.ID(), report.MetricUnscored, float64(len(private)-n)))
			continue
		}
		docs, labels := set.Known, set.KnownAuthors
		if entry.Task == registry.TaskTopic {
			docs, labels = set.TopicTrain, set.TopicTrainLabels
		}
		key := r.fitKey(c, si)
		if r.cfg.Adaptive(sc) {
			// The training texts go through the same mechanism (in the classification
			// protocol the topic and author training documents are the same ones).
			if privateKnown == nil {
				if privateKnown, err = r.privatise(ctx, clock, m, c, "known", set.Known); err != nil {
					return err
				}
			}
			docs = privateKnown
		}
		start := time.Now()
		f, err := r.fit(c, si, docs, labels, key)
		clock.add(nil, "fit", start)
		if err != nil {
			return err
		}
		start = time.Now()
		var pred []string
		var rrs []float64
		if r.ranksAttack(sc) {
			if pred, rrs, err = f.reciprocalRanks(uint64(r.cfg.Seed), "predict/"+r.cellPath(c)+"/scorer="+sc.ID(), private, set); err != nil {
				return fmt.Errorf("%s: scorer %s: %w", r.cellPath(c), sc.ID(), err)
			}
		} else {
			pred = f.predict(uint64(r.cfg.Seed), "predict/"+r.cellPath(c)+"/scorer="+sc.ID(), private)
		}
		clock.add(&r.spent, "predict", start)
		truth := set.EvalAuthors
		if entry.Task == registry.TaskTopic {
			truth = set.EvalTopics
		}
		if r.cfg.Protocol.Kind == runconfig.ProtocolPAN {
			pred = panAnswers(pred)
		}
		s := learn.Score(truth, pred)
		for i := range pred {
			preds = append(preds, rundir.Prediction{Scorer: sc.ID(), Document: documentID(set, i), Truth: truth[i], Prediction: pred[i],
				Item: i, Author: set.EvalAuthors[i]})
		}
		rows = append(rows, row(sc.ID(), report.MetricCorrect, float64(s.Correct)), row(sc.ID(), report.MetricTotal, float64(s.Total)),
			row(sc.ID(), report.MetricAccuracy, s.Accuracy), row(sc.ID(), report.MetricMacroPrecision, s.MacroPrecision),
			row(sc.ID(), report.MetricMacroRecall, s.MacroRecall), row(sc.ID(), report.MetricMacroF1, s.MacroF1))
		if r.cfg.Protocol.Kind == runconfig.ProtocolPAN && entry.Task == registry.TaskAuthor {
			rows = append(rows, row(sc.ID(), report.MetricOpenSetMacroF1, corpus.PANRound(learn.OpenSetMacroF1(truth, pred, corpus.UnknownAuthor))))
		}
		if rrs != nil {
			sum := 0.0
			for i, x := range rrs {
				sum += x
				preds = append(preds, rundir.Prediction{Scorer: rankScorer(sc.ID()), Document: documentID(set, i), Item: i, Author: set.EvalAuthors[i],
					Value: strconv.FormatFloat(x, 'g', -1, 64)})
			}
			rows = append(rows, row(sc.ID(), report.MetricReciprocalRank, sum/float64(len(rrs))))
		}
	}
	written, err := r.asWrittenRows(c, set)
	if err != nil {
		return err
	}
	rows = append(rows, written...)
	if err := ctx.Err(); err != nil {
		return err
	}
	tf := termVectors(m, private, privateKnown)
	return r.writeCell(filepath.Join(r.dir, "cells", rundir.CellFile(r.cellPath(c))), r.cellPath(c), rows, preds, tf, clock.record())
}

// ranksAttack reports whether scorer sc is the attacker of a [verdict] that matches on the
// true author's reciprocal rank: its cells then also record every item's reciprocal rank.
func (r *runner) ranksAttack(sc runconfig.ComponentConfig) bool {
	v := r.cfg.Verdict
	return v != nil && v.AttackMeasure == runconfig.AttackReciprocalRank && sc.ID() == v.Attack
}

// rankScorer is the scorer column of an attacker's per-item reciprocal ranks in
// predictions.csv (their value column holds the reciprocal rank).
func rankScorer(id string) string { return id + "/" + report.MetricReciprocalRank }

// documentID names evaluation document i of a set in predictions.csv: its story id, or its
// position when the corpus gave none.
func documentID(set *protocol.SetData, i int) string {
	if i < len(set.EvalIDs) && set.EvalIDs[i] != "" {
		return set.EvalIDs[i]
	}
	return strconv.Itoa(i)
}

// termVectorer is a mechanism whose output is a synthetic term-frequency vector (SynTF).
type termVectorer interface {
	TF(private []string) []syntf.TermCount
}

// termVectors renders, for a mechanism that releases term-frequency vectors, the sparse
// vector of every private document of a cell (written to tf/<cell>.tsv when the run
// completes): one line per document, `role<TAB>document<TAB>word:count word:count …` (role
// "eval" for the evaluation snippets or test documents, "known" for privatised training
// texts). It is empty for other mechanisms.
func termVectors(m mechanisms.Mechanism, private, privateKnown [][]string) string {
	tv, ok := m.(termVectorer)
	if !ok {
		return ""
	}
	var b strings.Builder
	write := func(role string, i int, doc []string) {
		fmt.Fprintf(&b, "%s\t%d", role, i)
		for j, t := range tv.TF(doc) {
			sep := " "
			if j == 0 {
				sep = "\t"
			}
			fmt.Fprintf(&b, "%s%s:%d", sep, t.Word, t.Count)
		}
		b.WriteString("\n")
	}
	for i, d := range private {
		write("eval", i, d)
	}
	for i, d := range privateKnown {
		write("known", i, d)
	}
	return b.String()
}

// writeTermVectors writes the tf/ folder of a completed run (file name → content).
// termVectorFiles are the paths, relative to the run folder, writeTermVectors writes files to.
func (r *runner) termVectorFiles(files map[string]string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		out = append(out, "tf/"+name)
	}
	return out
}

func (r *runner) writeTermVectors(files map[string]string) error {
	for name, data := range files {
		if err := rundir.WriteFileAtomic(filepath.Join(r.dir, "tf", name), []byte(data)); err != nil {
			return err
		}
	}
	return nil
}

// pairMetric builds utility measure si for a draw of a set: the draw's topic-training
// documents are its Env.Corpus (embf1's idf weights), so a measure is built once per draw.
func (r *runner) pairMetric(si int, set *protocol.SetData) (registry.PairMetric, error) {
	sc := r.cfg.Scorers[si]
	return getLazy(r, r.metric, strconv.Itoa(si)+"/"+set.DrawKey, func() (registry.PairMetric, error) {
		o, err := r.cfg.ScorerOptions(si)
		if err != nil {
			return nil, fmt.Errorf("scorer %s: %w", sc.ID(), err)
		}
		return o.Metric.Build(&registry.Env{Embeddings: r.in.store, Workers: r.jobs, Corpus: set.TopicTrain})
	})
}
