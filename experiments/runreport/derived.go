package runreport

import (
	"dptext/experiments/report"
	"dptext/experiments/runconfig"
)

// DerivedRows computes, from a run's rows, each scorer's performance relative to the none
// mechanism (same set, repeat and scorer) and the gain rows of cfg.Gains. They follow the
// cell rows they derive from, in the same order, so they are as deterministic as those.
func DerivedRows(cfg *runconfig.Config, rows []report.Row) []report.Row {
	noneLabel := "" // the label of the first baseline mechanism (registry.MechanismSpec.Baseline), if any
	for i, m := range cfg.Mechanisms {
		if o, err := cfg.MechanismOptions(i); err == nil && o.Baseline() && noneLabel == "" {
			noneLabel = m.ID()
		}
	}
	type key struct {
		set            string
		rep            int
		scorer, metric string
	}
	base := map[key]float64{}
	if noneLabel != "" {
		for _, r := range rows {
			if r.Mechanism == noneLabel {
				base[key{r.Set, r.Repeat, r.Scorer, r.Metric}] = r.Value
			}
		}
	}
	type cellKey struct {
		set, mech string
		eps       report.Epsilon
		rep       int
	}
	values := map[cellKey]map[string]float64{} // scorer/metric → value
	epsOf := map[cellKey]report.Epsilon{}      // the cell's ε as its rows hold it
	var order []cellKey
	var out []report.Row
	for _, r := range rows {
		if r.Mechanism == "" {
			continue
		}
		ck := cellKey{r.Set, r.Mechanism, r.Epsilon, r.Repeat}
		if values[ck] == nil {
			values[ck] = map[string]float64{}
			epsOf[ck] = r.Epsilon
			order = append(order, ck)
		}
		values[ck][r.Scorer+"/"+r.Metric] = r.Value
		for _, m := range report.RelativeMetrics {
			if r.Metric != m {
				continue
			}
			if b, ok := base[key{r.Set, r.Repeat, r.Scorer, m}]; ok && b > 0 {
				rel := r
				rel.Metric, rel.Value = "relative_"+m, r.Value/b
				values[ck][r.Scorer+"/"+rel.Metric] = rel.Value
				out = append(out, rel)
			}
		}
	}
	for _, ck := range order {
		v := values[ck]
		eps := epsOf[ck]
		for _, g := range cfg.Gains {
			row := func(metric string, x float64) report.Row {
				return report.Row{Set: ck.set, Mechanism: ck.mech, Epsilon: eps, Repeat: ck.rep, Scorer: g.Name, Metric: metric, Value: x}
			}
			u, okU := v[g.Utility+"/macro_f1"]
			a, okA := v[g.Attack+"/macro_f1"]
			if okU && okA {
				out = append(out, row(report.MetricDeltaF1, u-a))
			}
			ru, okU := v[g.Utility+"/relative_macro_f1"]
			ra, okA := v[g.Attack+"/relative_macro_f1"]
			if okU && okA {
				out = append(out, row(report.MetricDeltaRelativeF1, ru-ra))
			}
		}
	}
	return out
}
