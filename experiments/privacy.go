package experiments

import (
	"math"

	"dptext/mechanisms"
	"dptext/report"
)

// privacyRows reports the mean per-document guarantee, its named bounds, the bound between
// pairs of evaluation documents (for mechanisms that state it, see pairBoundRows), and the
// mechanism's diagnostics averaged over the set's snippets.
func privacyRows(m mechanisms.Mechanism, set *SetData, private [][]string, row func(string, string, float64) report.Row, env *Env) []report.Row {
	var rows []report.Row
	n := float64(len(private))
	epsSum := 0.0
	bounds := map[string]float64{}
	kind := ""
	for _, d := range set.Eval {
		g := m.Guarantee(d)
		kind = g.Kind
		epsSum += g.Epsilon
		for k, v := range g.Bounds {
			bounds[k] += v
		}
	}
	if kind != mechanisms.KindNone {
		rows = append(rows, row("privacy", "epsilon_doc", epsSum/n))
		for _, k := range sortedKeys(bounds) {
			rows = append(rows, row("privacy", k, bounds[k]/n))
		}
		if pb, ok := m.(mechanisms.PairBounder); ok {
			rows = append(rows, pairBoundRows(pb, set, row, env)...)
		}
	}
	if dg, ok := m.(mechanisms.Diagnoser); ok {
		sums := map[string]float64{}
		for i := range private {
			for k, v := range dg.Diagnose(set.Eval[i], private[i]) {
				sums[k] += v
			}
		}
		for _, k := range sortedKeys(sums) {
			rows = append(rows, row("mechanism", k, sums[k]/n))
		}
	}
	return rows
}

// pairBoundRows reports the log-multiplier bound ε·D(x, x′) between the evaluation documents of
// consecutive pairs (i, i+1 mod n, the pairs of the split's emd_mean_in_vocab), computed by the
// mechanism over the whole documents as it releases them (out-of-vocabulary words included):
//   - "log_multiplier_infinite_share": the share of pairs without a finite bound (for example
//     different out-of-vocabulary words passed through unchanged);
//   - "log_multiplier_mean": the mean bound over the pairs whose bound is finite only (absent
//     when there are none).
//
// The distances do not depend on ε and are computed once per set and configuration (Env.Memo).
func pairBoundRows(pb mechanisms.PairBounder, set *SetData, row func(string, string, float64) report.Row, env *Env) []report.Row {
	if len(set.Eval) < 2 {
		return nil
	}
	v, _ := env.Memo("pair-distances/"+pb.PairDistanceKey(), func() (any, error) {
		d := make([]float64, len(set.Eval))
		for i := range set.Eval {
			d[i] = pb.PairDistance(set.Eval[i], set.Eval[(i+1)%len(set.Eval)])
		}
		return d, nil
	})
	dists := v.([]float64)
	if len(set.Eval) == 2 {
		dists = dists[:1] // (0, 1) and (1, 0) are one pair
	}
	sum, finite := 0.0, 0
	for _, d := range dists {
		if !math.IsInf(d, 1) {
			sum += pb.Epsilon() * d
			finite++
		}
	}
	rows := []report.Row{row("privacy", "log_multiplier_infinite_share", float64(len(dists)-finite)/float64(len(dists)))}
	if finite > 0 {
		rows = append(rows, row("privacy", "log_multiplier_mean", sum/float64(finite)))
	}
	return rows
}
