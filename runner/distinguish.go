package runner

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"dptext/distinguish"
	"dptext/mechanisms"
	"dptext/protocol"
	"dptext/report"
	"dptext/report/verdict"
	"dptext/rngs"
)

// distinguishRows measures, with a [distinguish] table, the empirical document-level ε of the
// cell's mechanism at its ε (package distinguish) and returns its privacy rows, per distance k
// ("k1", "k5", …, "doc" for whole documents):
//   - "distinguish_eps_<k>": ε(A) = ln(A/(1 − A)) of the chosen distinguisher's balanced
//     accuracy A on the scored releases (+Inf when every one was told apart);
//   - "distinguish_eps_<k>_lcb" and "_ucb": the one-sided (1 − α) bounds (cluster bootstrap over
//     the authors of x, widened to the pooled Clopper–Pearson bounds where those are wider);
//   - "distinguish_eps_<k>_ceiling": the lower bound the design shows when every scored release
//     is told apart;
//   - "distinguish_accuracy_<k>": A;
//
// and the design, "distinguish_pairs" and "distinguish_releases". The pairs are drawn once per
// set draw from the evaluation snippets (stream "distinguish/pairs/<draw>"); the releases go
// through the cell's own release path (privatise: the batch path, its streams and the private
// cache, under "distinguish"), so they are the same at any --jobs. The distinguisher chosen at
// each distance is logged.
func (r *runner) distinguishRows(ctx context.Context, m mechanisms.Mechanism, c cell, set *protocol.SetData, row func(string, string, float64) report.Row) ([]report.Row, error) {
	d := r.cfg.Distinguish
	if d == nil {
		return nil, nil
	}
	o := d.Options()
	v, err := r.env(set).Memo("distinguish/pairs", func() (any, error) {
		return distinguish.Pairs(set.Eval, set.EvalAuthors, o.Pairs, o.Words, rngs.New(uint64(r.cfg.Seed), "distinguish/pairs/"+set.DrawKey))
	})
	if err != nil {
		return nil, fmt.Errorf("[distinguish] of set %s: %w", set.Name, err)
	}
	release := func(docs [][]string) ([][]string, error) { return r.privatise(ctx, m, c, "distinguish", docs) }
	res, err := distinguish.Measure(v.([]distinguish.Pair), release, r.in.store, o, uint64(r.cfg.Seed), "distinguish/"+r.cellPath(c))
	if err != nil {
		return nil, fmt.Errorf("[distinguish] of %s: %w", r.cellPath(c), err)
	}
	rows := []report.Row{row("privacy", "distinguish_pairs", float64(res.Pairs)), row("privacy", "distinguish_releases", float64(res.Releases))}
	var chosen []string
	for _, lv := range res.Levels {
		k := distinguish.DistanceName(lv.Distance)
		chosen = append(chosen, fmt.Sprintf("%s %s (%.3g on the selection releases)", k, lv.Chosen, lv.Selection[lv.Chosen]))
		rows = append(rows, row("privacy", "distinguish_accuracy_"+k, lv.Accuracy),
			row("privacy", "distinguish_eps_"+k, lv.Epsilon),
			row("privacy", "distinguish_eps_"+k+"_lcb", lv.EpsilonLow),
			row("privacy", "distinguish_eps_"+k+"_ucb", lv.EpsilonHigh),
			row("privacy", "distinguish_eps_"+k+"_ceiling", lv.Ceiling))
	}
	if r.logf != nil {
		r.logf("distinguish %s: chosen %s", r.cellPath(c), strings.Join(chosen, ", "))
	}
	return rows, nil
}

// distinguishStudy compares, with [distinguish] verdict_levels, every mechanism with an ε grid
// at matched empirical document-level ε (one scale for all: no unit of guarantee separates
// them), at distance verdict_distance. A point's position is the mean over repeats of its
// distinguish_eps_<k> row, fixed in every bootstrap replicate (verdict.Spec.Axis: only the
// utilities are resampled, so the empirical ε's own interval is not carried into the verdict); a
// point whose estimate is at or above its design ceiling (every scored release told apart, or
// nearly) measures the number of trials, not the mechanism, and is left out and named. It
// returns nil without verdict_levels. It is one study of verdict.md, under its familywise correction and halves.
func (r *runner) distinguishStudy(si int, points []verdict.CurvePoint, results []report.Row) (*verdictStudy, error) {
	d, v := r.cfg.Distinguish, r.cfg.Verdict
	if d == nil || len(d.VerdictLevels) == 0 {
		return nil, nil
	}
	set := r.sets[si]
	k := distinguish.DistanceName(*d.VerdictDistance)
	type key struct {
		mech, eps, metric string
	}
	sums, counts := map[key]float64{}, map[key]int{}
	for _, row := range results {
		if row.Set == set.Name && row.Scorer == "privacy" && row.Epsilon.Set() {
			kk := key{row.Mechanism, row.Epsilon.String(), row.Metric}
			sums[kk] += row.Value
			counts[kk]++
		}
	}
	spec := verdict.Spec{Axis: fmt.Sprintf("empirical document ε, %s (distinguish_eps_%s)", distinguishDistanceText(*d.VerdictDistance), k),
		Utilities: v.Utilities, Replicates: v.Replicates, Confidence: v.Confidence, Alpha: v.Alpha}
	for _, x := range d.VerdictLevels {
		spec.Levels = append(spec.Levels, x)
		spec.LevelNames = append(spec.LevelNames, "empirical ε "+strconv.FormatFloat(x, 'g', -1, 64))
	}
	var ps []verdict.CurvePoint
	var saturated, mechs []string
	for _, p := range points {
		if !p.Epsilon.Set() {
			continue
		}
		est, ceil := key{p.Mechanism, p.Epsilon.String(), "distinguish_eps_" + k}, key{p.Mechanism, p.Epsilon.String(), "distinguish_eps_" + k + "_ceiling"}
		if counts[est] == 0 || counts[ceil] == 0 {
			return nil, fmt.Errorf("%s at ε = %v: no distinguish_eps_%s rows", p.Mechanism, p.Epsilon, k)
		}
		x, c := sums[est]/float64(counts[est]), sums[ceil]/float64(counts[ceil])
		if x >= c {
			saturated = append(saturated, fmt.Sprintf("%s at ε %v (%.3g, ceiling %.3g)", p.Mechanism, p.Epsilon, x, c))
			continue
		}
		if !slices.Contains(mechs, p.Mechanism) {
			mechs = append(mechs, p.Mechanism)
		}
		q := p
		q.X = x
		ps = append(ps, q)
	}
	spec.Notes = append(spec.Notes, fmt.Sprintf("Every mechanism with an ε grid on one scale (%s); each point at its empirical ε estimate, fixed in the bootstrap (its own interval, the privacy rows distinguish_eps_%s_lcb and _ucb, is not carried into these intervals).", strings.Join(mechs, ", "), k))
	if len(saturated) > 0 {
		spec.Notes = append(spec.Notes, fmt.Sprintf("Left out (at the design's ceiling: every scored release told apart, the value measures pairs × releases): %s.", strings.Join(saturated, "; ")))
	}
	return &verdictStudy{spec: spec, points: ps, stream: "verdict/set=" + set.Name + "/distinguish=" + k}, nil
}

// distinguishDistanceText names a distance in words.
func distinguishDistanceText(k int) string {
	if k == distinguish.Whole {
		return "whole documents by other authors"
	}
	return strconv.Itoa(k) + " words of another author"
}
