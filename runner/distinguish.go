package runner

import (
	"context"
	"fmt"

	"dptext/distinguish"
	"dptext/mechanisms"
	"dptext/protocol"
	"dptext/report"
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
// cache, under "distinguish"), so they are the same at any --jobs.
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
	for _, lv := range res.Levels {
		k := distinguish.DistanceName(lv.Distance)
		rows = append(rows, row("privacy", "distinguish_accuracy_"+k, lv.Accuracy),
			row("privacy", "distinguish_eps_"+k, lv.Epsilon),
			row("privacy", "distinguish_eps_"+k+"_lcb", lv.EpsilonLow),
			row("privacy", "distinguish_eps_"+k+"_ucb", lv.EpsilonHigh),
			row("privacy", "distinguish_eps_"+k+"_ceiling", lv.Ceiling))
	}
	return rows, nil
}
