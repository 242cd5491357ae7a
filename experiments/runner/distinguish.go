package runner

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"dptext/experiments/protocol"
	"dptext/experiments/report"
	"dptext/experiments/rundir"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/distinguish"
)

// distinguishRows measures, with a [distinguish] table, the empirical document-level ε of the
// cell's mechanism at its ε (package distinguish) and returns its privacy rows, per distance k
// ("k1", "k5", …, "doc" for whole documents):
//   - "distinguish_eps_<k>": ε(A) = ln(A/(1 − A)) of the chosen distinguisher's balanced
//     accuracy A on the scored releases (no row when every one was told apart: ε(1) = ∞);
//   - "distinguish_eps_<k>_lcb" and "_ucb": the one-sided (1 − α) bounds (cluster bootstrap over
//     the authors of x, widened to the pooled Clopper–Pearson bounds where those are wider; no
//     "_ucb" row when the upper bound is ∞);
//   - "distinguish_eps_<k>_ceiling": the lower bound the design shows when every scored release
//     is told apart;
//   - "distinguish_accuracy_<k>": A;
//
// and the design, "distinguish_pairs" and "distinguish_releases". The pairs are drawn once per
// set draw from the evaluation snippets (stream "distinguish/pairs/<draw>"); the releases go
// through the cell's own release path (privatise: the batch path, its streams and the private
// cache, under "distinguish"), so they are the same at any --jobs; a mechanism that releases
// position by position sends each x′ at k words as those k words only (distinguish.Options.For). The distinguisher chosen at
// each distance is logged.
func (r *runner) distinguishRows(ctx context.Context, clock *cellClock, m mechanisms.Mechanism, c cell, set *protocol.SetData, row func(string, string, float64) report.Row) ([]report.Row, []rundir.Prediction, error) {
	d := r.cfg.Distinguish
	if d == nil {
		return nil, nil, nil
	}
	o := d.Options().For(m)
	v, err := r.env(set).Memo("distinguish/pairs", func() (any, error) {
		return distinguish.Pairs(set.Eval, set.EvalAuthors, o.Pairs, o.Words, rngs.New(uint64(r.cfg.Seed), "distinguish/pairs/"+set.DrawKey))
	})
	if err != nil {
		return nil, nil, fmt.Errorf("[distinguish] of set %s: %w", set.Name, err)
	}
	pairs := v.([]distinguish.Pair)
	// The game's own time, without its releases (counted by privatise in their phase).
	var releasing time.Duration
	release := func(docs [][]string) ([][]string, error) {
		start := time.Now()
		defer func() { releasing += time.Since(start) }()
		return r.privatise(ctx, clock, m, c, "distinguish", docs)
	}
	start := time.Now()
	res, err := distinguish.Measure(pairs, release, r.in.store, o, uint64(r.cfg.Seed), "distinguish/"+r.cellPath(c))
	clock.add(&r.spent, "distinguish", start.Add(releasing))
	if err != nil {
		return nil, nil, fmt.Errorf("[distinguish] of %s: %w", r.cellPath(c), err)
	}
	rows := []report.Row{row("privacy", "distinguish_pairs", float64(res.Pairs)), row("privacy", "distinguish_releases", float64(res.Releases))}
	var chosen []string
	var preds []rundir.Prediction
	for _, lv := range res.Levels {
		k := distinguish.DistanceName(lv.Distance)
		chosen = append(chosen, fmt.Sprintf("%s %s (%.3g on the selection releases)", k, lv.Chosen, lv.Selection[lv.Chosen]))
		rows = append(rows, row("privacy", "distinguish_accuracy_"+k, lv.Accuracy),
			row("privacy", "distinguish_eps_"+k+"_lcb", lv.EpsilonLow),
			row("privacy", "distinguish_eps_"+k+"_ceiling", lv.Ceiling))
		// An infinite estimate or upper bound (every scored release told apart) is no row: results.csv
		// holds finite numbers only (the accuracy row then says 1).
		if !math.IsInf(lv.Epsilon, 0) {
			rows = append(rows, row("privacy", "distinguish_eps_"+k, lv.Epsilon))
		}
		if !math.IsInf(lv.EpsilonHigh, 0) {
			rows = append(rows, row("privacy", "distinguish_eps_"+k+"_ucb", lv.EpsilonHigh))
		}
		preds = append(preds, distinguishItems(set, pairs, lv, "distinguish_"+k)...)
	}
	if r.logf != nil {
		r.logf("distinguish %s: chosen %s", r.cellPath(c), strings.Join(chosen, ", "))
	}
	return rows, preds, nil
}

// distinguishItems gives every evaluation item of set whose author is the x of a pair the mean
// scored accuracy of that author's pairs at level lv, as predictions of scorer name (its value):
// the item scores through which the authors' bootstrap of [verdict] resamples the pairs together
// with the utilities (distinguishVerdict). Items of authors without a pair get none.
func distinguishItems(set *protocol.SetData, pairs []distinguish.Pair, lv distinguish.Level, name string) []rundir.Prediction {
	sum, n := map[string]float64{}, map[string]int{}
	for p, pr := range pairs {
		a := set.EvalAuthors[pr.Index]
		sum[a] += lv.PerPair[p]
		n[a]++
	}
	var out []rundir.Prediction
	for i, a := range set.EvalAuthors {
		if n[a] > 0 {
			out = append(out, rundir.Prediction{Scorer: name, Document: documentID(set, i), Item: i, Author: a,
				Value: strconv.FormatFloat(sum[a]/float64(n[a]), 'g', -1, 64)})
		}
	}
	return out
}
