package runner

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"dptext/experiments/protocol"
	"dptext/experiments/report"
	"dptext/experiments/report/verdict"
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
// cache, under "distinguish"), so they are the same at any --jobs. The distinguisher chosen at
// each distance is logged.
func (r *runner) distinguishRows(ctx context.Context, clock *cellClock, m mechanisms.Mechanism, c cell, set *protocol.SetData, row func(string, string, float64) report.Row) ([]report.Row, []rundir.Prediction, error) {
	d := r.cfg.Distinguish
	if d == nil {
		return nil, nil, nil
	}
	o := d.Options()
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

// distinguishStudy compares, with [distinguish] verdict_levels, every mechanism with an ε grid
// at matched empirical document-level ε (one scale for all: no unit of guarantee separates them),
// at distance verdict_distance, by the rules of the attack axis (verdict.Matched): the
// "attack" is the distinguisher's accuracy, each item scored with its author's mean pair
// accuracy (distinguishItems), and a level ε is the accuracy e^ε/(1 + e^ε); a value comes only
// from two points of a mechanism's own grid, and the bootstrap over authors draws an author's pairs
// with his items, so the empirical ε's own uncertainty is in every interval. The authors' weights
// equal their pairs' when every author is x of equally many pairs (pairs a multiple of the
// authors: Pairs spreads them evenly). It is one study of verdict.md: under its one familywise
// correction and, with [verdict] halves, replicated on the attack axis's halves of the authors.
// The ε search (searchEpsilons) runs on this axis too: its notes and the mechanisms that
// reached the end of their ε range are the spec's. It returns nil without verdict_levels.
func (r *runner) distinguishStudy(si int, items []itemScore, points []verdict.CurvePoint, cluster []int) (*verdictStudy, error) {
	d, v := r.cfg.Distinguish, r.cfg.Verdict
	if d == nil || len(d.VerdictLevels) == 0 {
		return nil, nil
	}
	set := r.sets[si]
	k := distinguish.DistanceName(*d.VerdictDistance)
	name := "distinguish_" + k
	type itemKey struct{ rep, item int }
	type pointKey struct {
		mech string
		eps  report.Epsilon
	}
	values := map[pointKey]map[itemKey]float64{}
	for _, it := range items {
		if it.cell.set != si || it.pred.Scorer != name {
			continue
		}
		x, err := strconv.ParseFloat(it.pred.Value, 64)
		if err != nil {
			return nil, fmt.Errorf("cell %s: %s item %d: value %q: %v", it.cell.path(r.cfg, r.sets), name, it.pred.Item, it.pred.Value, err)
		}
		pk := pointKey{r.cfg.Mechanisms[it.cell.mech].ID(), it.cell.eps}
		if values[pk] == nil {
			values[pk] = map[itemKey]float64{}
		}
		values[pk][itemKey{it.cell.rep, it.pred.Item}] = x
	}
	spec := verdict.Spec{Attack: name, Utilities: v.Utilities, Baseline: *v.Baseline, Replicates: v.Replicates, Confidence: v.Confidence, Alpha: v.Alpha,
		Notes: []string{fmt.Sprintf("The privacy axis is the empirical document ε, %s: the accuracy A of the best untrained distinguisher (%s ≤ A is empirical ε ≤ ln(A/(1 − A))), each item scored with its author's mean pair accuracy, so the bootstrap over authors resamples the pairs with the utilities. Every mechanism with an ε grid is on this one scale.",
			distinguishDistanceText(*d.VerdictDistance), name)}, RangeEnds: r.searchEnds(si, empiricalAxis)}
	spec.Notes = append(spec.Notes, r.searchNotes(si, empiricalAxis)...)
	for _, x := range d.VerdictLevels {
		a := math.Exp(x) / (1 + math.Exp(x))
		spec.Levels = append(spec.Levels, a)
		spec.LevelNames = append(spec.LevelNames, "empirical ε "+strconv.FormatFloat(x, 'g', -1, 64))
	}
	ps := make([]verdict.CurvePoint, len(points))
	for j, p := range points {
		vals := values[pointKey{p.Mechanism, p.Epsilon}]
		if len(vals) != len(cluster) {
			return nil, fmt.Errorf("[distinguish] verdict: mechanism %s ε %s has %s scores for %d of the %d items: every author of set %s needs a pair (pairs = %d)",
				p.Mechanism, p.Epsilon, name, len(vals), len(cluster), set.Name, d.Pairs)
		}
		keys := slices.SortedFunc(maps.Keys(vals), func(a, b itemKey) int {
			if a.rep != b.rep {
				return a.rep - b.rep
			}
			return a.item - b.item
		})
		q := verdict.CurvePoint{Mechanism: p.Mechanism, Epsilon: p.Epsilon, Scores: maps.Clone(p.Scores)}
		q.Scores[name] = make([]float64, len(keys))
		for i, key := range keys {
			q.Scores[name][i] = vals[key]
		}
		ps[j] = q
	}
	return &verdictStudy{spec: spec, points: ps, stream: "verdict/set=" + set.Name + "/distinguish=" + k}, nil
}

// distinguishDistanceText names a distance in words.
func distinguishDistanceText(k int) string {
	switch k {
	case distinguish.Whole:
		return "whole documents by other authors"
	case 1:
		return "1 word of another author"
	}
	return strconv.Itoa(k) + " words of another author"
}
