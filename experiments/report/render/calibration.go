package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"dptext/experiments/report"

	"gonum.org/v1/plot/vg"
)

// The privacy rows of the distinguishing game (runner's distinguishRows): per distance k,
// "distinguish_eps_<k>" with "_lcb", "_ucb" and "_ceiling".
const (
	distinguishPrefix = "distinguish_eps_"
	calibrationFile   = "distinguish-"
)

// distances lists the distances k of set's distinguish rows, in row order.
func distances(s *report.Summary, set string) []string {
	var out []string
	for _, m := range s.Metrics(set, report.PrivacyScorer) {
		if k, ok := strings.CutSuffix(strings.TrimPrefix(m, distinguishPrefix), "_lcb"); ok && strings.HasPrefix(m, distinguishPrefix) {
			out = append(out, k)
		}
	}
	return out
}

// calibrationFigures plots, for one set and each distance k of its distinguish rows, the
// calibration of nominal ε against empirical ε (`distinguish-<k>-<set>`): per mechanism with ε,
// the empirical document-level ε lower bound (mean over repeats) against the nominal ε on a log
// axis, its bar reaching up to the upper bound where that is finite; mechanisms without ε (none,
// random) as lines at their lower bound; the design's ceiling (the lower bound when every scored
// release is told apart) as a grey line. Nominal ε are in each mechanism's own unit, hence the
// log axis: the empirical ε is the common scale (see empiricalFrontierFigures).
func calibrationFigures(s *report.Summary, set string) (map[string]*figure, error) {
	out := map[string]*figure{}
	for _, k := range distances(s, set) {
		metric := func(suffix string) string { return distinguishPrefix + k + suffix }
		f := &figure{title: fmt.Sprintf("set %s: empirical document ε (%s) against nominal ε", set, distanceLabel(k)),
			xLabel: "nominal ε (log scale; each mechanism's own unit)", yLabel: "empirical document ε (lower bound, bar to upper)", logX: true}
		rows := tableRows(s, func(c report.Cell) bool { return c.Set == set && c.Mechanism != "" && c.Metric == metric("_lcb") })
		cell := func(r rowKey, m string) (report.Cell, bool) {
			return s.Cell(report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: report.PrivacyScorer, Metric: m})
		}
		var p panel
		for _, mech := range mechanismsWithEpsilon(rows) {
			var pts errPoints
			var tags []string
			for _, r := range slices.Backward(rows) { // ascending ε
				lo, ok := cell(r, metric("_lcb"))
				if !ok || r.Mechanism != mech {
					continue
				}
				up := 0.0
				if hi, ok := cell(r, metric("_ucb")); ok && !math.IsInf(hi.Mean, 0) && !math.IsNaN(hi.Mean) {
					up = hi.Mean - lo.Mean
				}
				pts.x, pts.y = append(pts.x, r.Epsilon.Value()), append(pts.y, lo.Mean)
				pts.xlo, pts.xhi = append(pts.xlo, 0), append(pts.xhi, 0)
				pts.ylo, pts.yhi = append(pts.ylo, 0), append(pts.yhi, up)
				tags = append(tags, "ε="+r.Epsilon.String())
			}
			p.series = append(p.series, series{key: mech, name: mech, pts: pts, tags: tags})
		}
		for _, r := range rows {
			if r.Epsilon.Set() {
				continue
			}
			if c, ok := cell(r, metric("_lcb")); ok {
				p.lines = append(p.lines, refLine{name: r.Mechanism, at: c.Mean, style: SeriesStyle(r.Mechanism).Line(vg.Points(1))})
			}
		}
		if ceiling := designCeiling(s, set, k); ceiling > 0 {
			p.lines = append(p.lines, refLine{name: "design ceiling", at: ceiling, style: ceilingStyle})
		}
		f.panels = []panel{p}
		f.smallMultiples()
		out[calibrationFile+k+"-"+set] = f
	}
	return out, nil
}

// designCeiling is the largest `_ceiling` row of distance k in set (0 without one): the largest
// lower bound the design can show.
func designCeiling(s *report.Summary, set, k string) float64 {
	ceiling := 0.0
	for _, c := range s.Cells {
		if c.Set == set && c.Scorer == report.PrivacyScorer && c.Metric == distinguishPrefix+k+"_ceiling" {
			ceiling = math.Max(ceiling, c.Mean)
		}
	}
	return ceiling
}

// empiricalFrontierFile begins the names of the frontier figures on the empirical axis.
const empiricalFrontierFile = "frontier-empirical-"

// empiricalFrontierFigures plots, for one set, each distance k of its distinguish rows and each
// utility scorer (Layout.Utilities, else the frontier's utility), the privacy–utility frontier
// on the empirical scale (`frontier-empirical-<k>-<utility>-<set>`): the utility (accuracy for
// a classifier, else the measure's mean, with its t interval) against the empirical document ε
// (its point estimate with its lower and upper confidence bounds as bars, the bar reaching the
// axis's end where the upper bound is infinite in a repeat), one curve per mechanism with ε and
// a marker per mechanism without ε. Where every scored release was told apart (in a repeat),
// the estimate is infinite: the point stands at its lower bound, ringed in black, and the
// design's ceiling is drawn as a vertical line. The empirical
// ε is in one unit for every mechanism, so this is the figure that compares families.
func empiricalFrontierFigures(s *report.Summary, l Layout, set string) (map[string]*figure, error) {
	utilities := l.Utilities
	if len(utilities) == 0 && l.Frontier.Utility != "" {
		utilities = []string{l.Frontier.Utility}
	}
	out := map[string]*figure{}
	for _, k := range distances(s, set) {
		for _, u := range utilities {
			metric := report.MetricAccuracy
			if !slices.Contains(s.Metrics(set, u), metric) {
				metric = "mean"
			}
			f := &figure{title: fmt.Sprintf("set %s: %s %s against empirical document ε (%s)", set, l.label(u), metric, distanceLabel(k)),
				xLabel: "empirical document ε (the estimate; bars from the lower to the upper confidence bound, to the axis's end where that is ∞)", yLabel: fmt.Sprintf("%s %s (utility)", l.label(u), metric),
				xErrors: true, includeZeroX: true, excludeZeroY: true}
			rows := tableRows(s, func(c report.Cell) bool {
				return c.Set == set && c.Mechanism != "" && c.Scorer == report.PrivacyScorer && c.Metric == distinguishPrefix+k+"_lcb"
			})
			var p panel
			add := func(mech string, reference bool) {
				var sr series
				for _, r := range slices.Backward(rows) { // ascending ε
					if r.Mechanism != mech {
						continue
					}
					key := func(scorer, m string) report.Key {
						return report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: scorer, Metric: m}
					}
					util, ok := s.Cell(key(u, metric))
					lo, okLo := s.Cell(key(report.PrivacyScorer, distinguishPrefix+k+"_lcb"))
					if !ok || !okLo {
						continue
					}
					// A repeat whose estimate (or upper bound) is infinite has no row: the mean of
					// the others would understate it.
					x, xlo, xhi, sat := lo.Mean, 0.0, 0.0, true
					if est, ok := s.Cell(key(report.PrivacyScorer, distinguishPrefix+k)); ok && est.N() == lo.N() && !math.IsInf(est.Mean, 0) {
						x, xlo, xhi, sat = est.Mean, est.Mean-lo.Mean, math.Inf(1), false
						if hi, ok := s.Cell(key(report.PrivacyScorer, distinguishPrefix+k+"_ucb")); ok && hi.N() == lo.N() && !math.IsInf(hi.Mean, 0) {
							xhi = hi.Mean - est.Mean
						}
					}
					sr.pts.x, sr.pts.y = append(sr.pts.x, x), append(sr.pts.y, util.Mean)
					sr.pts.xlo, sr.pts.xhi = append(sr.pts.xlo, math.Max(0, xlo)), append(sr.pts.xhi, math.Max(0, xhi))
					yerr := util.HalfWidth
					if math.IsNaN(yerr) {
						yerr = 0
					}
					sr.pts.ylo, sr.pts.yhi = append(sr.pts.ylo, yerr), append(sr.pts.yhi, yerr)
					sr.saturated = append(sr.saturated, sat)
					sr.tags = append(sr.tags, "ε="+r.Epsilon.String())
				}
				if sr.pts.Len() == 0 {
					return
				}
				if proportion(metric) {
					sr.pts.clip(false, true)
				}
				sr.key, sr.name, sr.reference = mech, mech, reference
				if reference {
					sr.tags = nil
				}
				p.series = append(p.series, sr)
			}
			for _, mech := range mechanismsWithEpsilon(rows) {
				add(mech, false)
			}
			for _, r := range rows {
				if !r.Epsilon.Set() {
					add(r.Mechanism, true)
				}
			}
			if len(p.series) == 0 {
				continue
			}
			if ceiling := designCeiling(s, set, k); ceiling > 0 {
				p.lines = append(p.lines, refLine{name: "design ceiling", at: ceiling, vertical: true, style: ceilingStyle})
			}
			f.panels = []panel{p}
			f.smallMultiples()
			out[empiricalFrontierFile+k+"-"+u+"-"+set] = f
		}
	}
	return out, nil
}

// distanceLabel names a distance of the distinguish rows: "k5" → "5 words changed", "k1" →
// "1 word changed", "doc" → "whole documents".
func distanceLabel(k string) string {
	switch k {
	case "doc":
		return "whole documents"
	case "k1":
		return "1 word changed"
	}
	return strings.TrimPrefix(k, "k") + " words changed"
}

// distinguishDescription describes a distinguish privacy row in the privacy table's caption.
func distinguishDescription(metric string) (string, bool) {
	rest, ok := strings.CutPrefix(metric, distinguishPrefix)
	if !ok {
		return "", false
	}
	k, suffix, _ := strings.Cut(rest, "_")
	what := map[string]string{
		"":        "empirical document-level ε ln(A/(1 − A)) of the best untrained distinguisher's balanced accuracy A between a snippet and its neighbour with " + distanceLabel(k) + " (– where ∞: every scored release told apart)",
		"lcb":     "its one-sided lower confidence bound (cluster bootstrap over the authors of the pairs; a lower bound for the distinguishers tried, not a proof of privacy)",
		"ucb":     "its one-sided upper confidence bound (– where ∞)",
		"ceiling": "the largest lower bound the design (pairs × scored releases) can show",
	}[suffix]
	if what == "" {
		return "", false
	}
	return distanceLabel(k) + ", " + what, true
}
