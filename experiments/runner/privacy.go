package runner

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"dptext/experiments/protocol"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/mechanisms"
	"dptext/mechanisms/audit"
)

// privacyRows reports the mean per-document guarantee, its named bounds, the bound between
// pairs of evaluation documents (for mechanisms that state it, see pairBoundRows), and the
// mechanism's diagnostics averaged over the set's snippets.
//
// With an [audit] table in the config, the audited ε lower confidence bound of the mechanism at
// the cell's ε and the most its tests could have shown are added (see auditRows).
func privacyRows(m mechanisms.Mechanism, set *protocol.SetData, private [][]string, row func(string, string, float64) report.Row, env *registry.Env, cfg *runconfig.Config) ([]report.Row, error) {
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
		for _, k := range slices.Sorted(maps.Keys(bounds)) {
			rows = append(rows, row("privacy", k, bounds[k]/n))
		}
		if pb, ok := m.(mechanisms.PairBounder); ok {
			rows = append(rows, pairBoundRows(pb, set, row, env)...)
		}
		if cfg != nil && cfg.Audit != nil {
			r, err := auditRows(m, row, env, cfg)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r...)
		}
	}
	if dg, ok := m.(mechanisms.Diagnoser); ok {
		sums := map[string]float64{}
		shares := make([]float64, 0, len(private))
		for i := range private {
			d := dg.Diagnose(set.Eval[i], private[i])
			for k, v := range d {
				sums[k] += v
			}
			if v, ok := d["unchanged_share"]; ok {
				shares = append(shares, v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(sums)) {
			rows = append(rows, row("mechanism", k, sums[k]/n))
		}
		if len(shares) == len(private) {
			rows = append(rows, unchangedCountRows(shares, set, row, env)...)
		}
	}
	return rows, nil
}

// pairBoundRows reports the log-multiplier bound ε·D(x, x′) between the evaluation documents of
// consecutive pairs (i, i+1 mod n, the pairs of the split's emd_mean_in_vocab), computed by the
// mechanism over the whole documents as it releases them (out-of-vocabulary words included):
//   - "log_multiplier_infinite_share": the share of pairs without a finite bound (for example
//     different out-of-vocabulary words passed through unchanged, or different numbers of them
//     dropped);
//   - "log_multiplier_mean": the mean bound over the pairs whose bound is finite only (absent
//     when there are none).
//
// The distances do not depend on ε and are computed once per set and configuration (Env.Memo).
func pairBoundRows(pb mechanisms.PairBounder, set *protocol.SetData, row func(string, string, float64) report.Row, env *registry.Env) []report.Row {
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

// ConfigAuditOptions are the audit options of cfg's [audit] table (which must be present) and
// its seed: those of the run's audit rows and of `dptext audit --all --config`.
func ConfigAuditOptions(cfg *runconfig.Config) audit.Options {
	o := audit.DefaultOptions()
	o.Samples, o.Alpha, o.Pairs, o.Seed = cfg.Audit.Samples, cfg.Audit.Alpha, cfg.Audit.Pairs, uint64(cfg.Seed)
	return o
}

// auditRows audits m (once per set, mechanism and ε: Env.Memo) and returns its
// "audit_violations" row (the tests whose bound exceeds the claim or whose goodness-of-fit
// test rejected it: 0 when the audit passes), its "audited_eps_lcb" row and its
// "audited_eps_ceiling" row, the largest value the audit's tests
// could have shown per claim unit (+Inf where a test is exact): a lower bound close to its
// ceiling is a property of the sample size, not of the mechanism. It is called only for
// mechanisms that claim a guarantee, and returns only the violations when no test bounded
// anything (every tested pair unprotected, e.g. a claim of ∞).
func auditRows(m mechanisms.Mechanism, row func(string, string, float64) report.Row, env *registry.Env, cfg *runconfig.Config) ([]report.Row, error) {
	probe := row("privacy", "audited_eps_lcb", 0)
	key := fmt.Sprintf("audit/%s/%v", probe.Mechanism, probe.Epsilon)
	v, err := env.Memo(key, func() (any, error) {
		rep, err := audit.Audit(probe.Mechanism, m, env.Embeddings, ConfigAuditOptions(cfg))
		if err != nil {
			return nil, err
		}
		return rep, nil
	})
	if err != nil {
		return nil, fmt.Errorf("audit of %s at ε = %v: %w", probe.Mechanism, probe.Epsilon, err)
	}
	rep := v.(*audit.Report)
	rows := []report.Row{row("privacy", report.MetricAuditViolations, float64(len(rep.Violations())))}
	if !rep.Measured() {
		return rows, nil // nothing bounded: every tested pair is unprotected (the table shows –)
	}
	probe.Value = rep.AuditedEpsilon()
	return append([]report.Row{probe, row("privacy", "audited_eps_ceiling", rep.AuditedCeiling())}, rows...), nil
}

// unchangedCountRows writes the counts behind a mechanism's unchanged_share (shares: each
// evaluation document's), summed over the cell's evaluation documents: unchanged_words of
// share_words, so that `dptext compare` tests the share as a proportion of words rather than
// as a mean over repeats. The share's denominator is the document's in-vocabulary tokens (EMD)
// or all its tokens (expmech): the first of the two that makes every document's share times
// it a whole number. When neither does, no count row is written.
func unchangedCountRows(shares []float64, set *protocol.SetData, row func(string, string, float64) report.Row, env *registry.Env) []report.Row {
	if env == nil || env.Embeddings == nil {
		return nil
	}
	inVocab := func(doc []string) int {
		n := 0
		for _, w := range doc {
			if _, ok := env.Embeddings.Lookup(w); ok {
				n++
			}
		}
		return n
	}
	allTokens := func(doc []string) int { return len(doc) }
	for _, denominator := range []func([]string) int{inVocab, allTokens} {
		unchanged, words, whole := 0.0, 0.0, true
		for i, share := range shares {
			n := float64(denominator(set.Eval[i]))
			k := share * n
			if math.Abs(k-math.Round(k)) > 1e-6 {
				whole = false
				break
			}
			unchanged, words = unchanged+math.Round(k), words+n
		}
		if whole {
			return []report.Row{row("mechanism", report.MetricUnchangedWords, unchanged), row("mechanism", report.MetricShareWords, words)}
		}
	}
	return nil
}
