package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"dptext/experiments/report"

	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The privacy rows of the distinguishing game (runner's distinguishRows): per distance k,
// "distinguish_eps_<k>" with "_lcb", "_ucb" and "_ceiling".
const (
	distinguishPrefix = "distinguish_eps_"
	calibrationFile   = "distinguish-"
)

// calibrationFigures plots, for one set and each distance k of its distinguish rows, the
// calibration of nominal ε against empirical ε (`distinguish-<k>-<set>`): per mechanism with ε,
// the empirical document-level ε lower bound (mean over repeats) against log10 of the nominal ε,
// its bar reaching up to the upper bound where that is finite; mechanisms without ε (none,
// random) as dotted lines at their lower bound; the design's ceiling (the lower bound when every
// scored release is told apart) as a grey dashed line. Nominal ε are in each mechanism's own
// unit, hence the log axis: the empirical ε is the common scale.
func calibrationFigures(s *report.Summary, set string) (map[string]*figure, error) {
	var distances []string
	for _, m := range s.Metrics(set, report.PrivacyScorer) {
		if k, ok := strings.CutSuffix(strings.TrimPrefix(m, distinguishPrefix), "_lcb"); ok && strings.HasPrefix(m, distinguishPrefix) {
			distances = append(distances, k)
		}
	}
	out := map[string]*figure{}
	for _, k := range distances {
		metric := func(suffix string) string { return distinguishPrefix + k + suffix }
		f := newFigure(fmt.Sprintf("set %s: empirical document ε (%s) against nominal ε", set, distanceLabel(k)),
			"log10 nominal ε (each mechanism's own unit)", "empirical document ε (lower bound, bar to upper)")
		rows := tableRows(s, func(c report.Cell) bool { return c.Set == set && c.Mechanism != "" && c.Metric == metric("_lcb") })
		cell := func(r rowKey, m string) (report.Cell, bool) {
			return s.Cell(report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: report.PrivacyScorer, Metric: m})
		}
		ceiling := 0.0
		for _, r := range rows {
			if c, ok := cell(r, metric("_ceiling")); ok {
				ceiling = math.Max(ceiling, c.Mean)
			}
		}
		for mi, mech := range mechanismsWithEpsilon(rows) {
			var pts errPoints
			for _, r := range slices.Backward(rows) { // ascending ε
				lo, ok := cell(r, metric("_lcb"))
				if !ok || r.Mechanism != mech {
					continue
				}
				up := 0.0
				if hi, ok := cell(r, metric("_ucb")); ok && !math.IsInf(hi.Mean, 0) && !math.IsNaN(hi.Mean) {
					up = hi.Mean - lo.Mean
				}
				pts.x, pts.y = append(pts.x, math.Log10(r.Epsilon.Value())), append(pts.y, lo.Mean)
				pts.xlo, pts.xhi = append(pts.xlo, 0), append(pts.xhi, 0)
				pts.ylo, pts.yhi = append(pts.ylo, 0), append(pts.yhi, up)
			}
			if err := f.curve(mech, pts, plotutil.Color(mi), plotutil.Shape(mi), false); err != nil {
				return nil, err
			}
		}
		for i, r := range rows {
			if r.Epsilon.Set() {
				continue
			}
			if c, ok := cell(r, metric("_lcb")); ok {
				f.horizontal(r.Mechanism, c.Mean, draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1), Dashes: referenceDash})
			}
		}
		if ceiling > 0 {
			f.horizontal("design ceiling", ceiling, chanceStyle)
		}
		f.fit(false)
		out[calibrationFile+k+"-"+set] = f
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
