package render

import (
	"image/color"

	"dptext/experiments/report"
	"fmt"
	"gonum.org/v1/plot/vg/draw"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// errPoints are points with x and y error bars (0 where unknown): the distances below and
// above each point, equal unless clipped.
type errPoints struct{ x, y, xlo, xhi, ylo, yhi []float64 }

func (p *errPoints) add(x, y, xerr, yerr float64) {
	zeroNaN := func(v float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return v
	}
	p.x, p.y = append(p.x, x), append(p.y, y)
	p.xlo, p.xhi = append(p.xlo, zeroNaN(xerr)), append(p.xhi, zeroNaN(xerr))
	p.ylo, p.yhi = append(p.ylo, zeroNaN(yerr)), append(p.yhi, zeroNaN(yerr))
}

// clip shortens the bars of a proportion (x and/or y) to end inside [0, 1] and reports whether
// any bar was shortened: a t interval of a mean may reach past the possible values.
func (p *errPoints) clip(x, y bool) (clipped bool) {
	cut := func(vs, lo, hi []float64) {
		for i, v := range vs {
			if v-lo[i] < 0 {
				lo[i], clipped = math.Max(0, v), true
			}
			if v+hi[i] > 1 {
				hi[i], clipped = math.Max(0, 1-v), true
			}
		}
	}
	if x {
		cut(p.x, p.xlo, p.xhi)
	}
	if y {
		cut(p.y, p.ylo, p.yhi)
	}
	return clipped
}

func (p errPoints) Len() int                        { return len(p.x) }
func (p errPoints) XY(i int) (float64, float64)     { return p.x[i], p.y[i] }
func (p errPoints) XError(i int) (float64, float64) { return p.xlo[i], p.xhi[i] }
func (p errPoints) YError(i int) (float64, float64) { return p.ylo[i], p.yhi[i] }
func (p errPoints) xEnds() []float64                { return ends(p.x, p.xlo, p.xhi) }
func (p errPoints) yEnds() []float64                { return ends(p.y, p.ylo, p.yhi) }
func ends(vs, lo, hi []float64) []float64 {
	var out []float64
	for i, v := range vs {
		out = append(out, v-lo[i], v+hi[i])
	}
	return out
}

// proportion reports whether metric is a share in [0, 1] (accuracy, F1, precision, recall,
// validation accuracy, shares), whose intervals are clipped there in plots.
func proportion(metric string) bool {
	switch metric {
	case report.MetricAccuracy, report.MetricMacroPrecision, report.MetricMacroRecall, report.MetricMacroF1, report.MetricValidationAccuracy, report.MetricOpenSetMacroF1:
		return true
	}
	return strings.HasSuffix(metric, "_share")
}

// clippedNote is appended to an axis label whose intervals were clipped to [0, 1].
const clippedNote = " (intervals clipped to [0, 1])"

// metricFigure plots metric against ε for one set. With at most maxSeriesPerPanel mechanisms
// with ε, one panel per scorer: a curve per mechanism in its style on a log ε axis when there
// are several (their grids may be in different units), the value of each mechanism without ε
// (such as none) as a line in its style, chance as a grey dashed line and the published numbers
// of a column (references, as proportions where the column shows counts) as black squares.
// With more, one panel per mechanism on its own ε axis (log when its grid spans more than a
// factor of 20), a curve per scorer in the mechanism's colour, told apart by marker and dash.
// ok is false when no mechanism with ε reports the metric.
func metricFigure(s *report.Summary, l Layout, set, metric string) (f *figure, ok bool, err error) {
	var scorers []string
	for _, sc := range s.Scorers(set) {
		if sc != report.SplitScorer && slices.Contains(s.Metrics(set, sc), metric) {
			scorers = append(scorers, sc)
		}
	}
	columns := l.scorerOrder() // the table's columns lead, in their order
	slices.SortStableFunc(scorers, func(a, b string) int {
		ia, ib := slices.Index(columns, a), slices.Index(columns, b)
		if ia < 0 {
			ia = len(columns)
		}
		if ib < 0 {
			ib = len(columns)
		}
		return ia - ib
	})
	rows := tableRows(s, func(c report.Cell) bool { return c.Set == set && c.Mechanism != "" && c.Metric == metric })
	mechanisms := mechanismsWithEpsilon(rows)
	curve := func(sc, mech string) (errPoints, []string) {
		var pts errPoints
		var tags []string
		for _, r := range slices.Backward(rows) { // ascending ε
			if c, found := s.Cell(report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: sc, Metric: metric}); found && r.Mechanism == mech {
				pts.add(r.Epsilon.Value(), c.Mean, 0, c.HalfWidth)
				tags = append(tags, "ε="+r.Epsilon.String())
			}
		}
		return pts, tags
	}
	clipped := false
	clip := func(pts *errPoints) {
		if proportion(metric) && pts.clip(false, true) {
			clipped = true
		}
	}
	chanceLine := func(sc string) []refLine {
		if v, found := chance(s, set, sc, l.task(sc), metric); found {
			return []refLine{{name: "chance (" + l.task(sc) + ")", at: v, style: chanceStyle}}
		}
		return nil
	}
	f = &figure{title: fmt.Sprintf("set %s: %s against ε", set, metric), xLabel: "ε", yLabel: metric}
	if len(mechanisms) > maxSeriesPerPanel {
		f.title += " (one panel per mechanism, each on its own ε axis)"
		f.xLabel = "ε (the mechanism's own unit)"
		f.ownX = true
		for _, mech := range mechanisms {
			p := panel{title: mech}
			for si, sc := range scorers {
				pts, _ := curve(sc, mech)
				if pts.Len() == 0 {
					continue
				}
				clip(&pts)
				st := SeriesStyle(mech)
				st.Marker, st.Dash = si%len(markers), si%len(dashes)
				p.series = append(p.series, series{key: mech + "\x00" + sc, name: l.label(sc), pts: pts, style: &st})
				p.lines = append(p.lines, chanceLine(sc)...)
				lo, hi := slices.Min(pts.x), slices.Max(pts.x)
				p.logX = p.logX || (lo > 0 && hi/lo > 20)
				ok = true
			}
			if len(p.series) > 0 {
				f.panels = append(f.panels, p)
			}
		}
	} else {
		f.logX = len(mechanisms) > 1
		if f.logX {
			f.xLabel = "ε (log scale; each mechanism's own unit)"
		}
		for _, sc := range scorers {
			p := panel{title: l.label(sc)}
			for _, mech := range mechanisms {
				pts, tags := curve(sc, mech)
				if pts.Len() == 0 {
					continue
				}
				clip(&pts)
				p.series = append(p.series, series{key: mech, name: mech, pts: pts, tags: tags})
				ok = true
			}
			for _, r := range rows {
				if r.Epsilon.Set() {
					continue
				}
				if c, found := s.Cell(report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: sc, Metric: metric}); found {
					p.lines = append(p.lines, refLine{name: r.Mechanism, at: c.Mean, style: SeriesStyle(r.Mechanism).Line(vg.Points(1))})
				}
			}
			ref, lines := publishedSeries(s, l, set, sc, metric, rows)
			if ref.pts.Len() > 0 {
				p.series = append(p.series, ref)
			}
			p.lines = append(p.lines, lines...)
			p.lines = append(p.lines, chanceLine(sc)...)
			if len(p.series) > 0 {
				f.panels = append(f.panels, p)
			}
		}
	}
	if !ok {
		return nil, false, nil
	}
	if clipped {
		f.yLabel += clippedNote
	}
	return f, true, nil
}

// publishedStyle draws the published numbers: black squares, no line.
var publishedStyle = Style{Colour: black, Marker: square, Dash: solid}

// publishedSeries is the published numbers of scorer's column in set (Layout.References) as a
// reference series at their ε, in the plotted metric: a column of counts ("correct") plotted as
// accuracy is divided by the set's authors (a reference is only used beside a set of as many
// authors as the published one). Numbers keyed by a mechanism without ε ("none") are black
// dotted lines.
func publishedSeries(s *report.Summary, l Layout, set, scorer, metric string, rows []rowKey) (series, []refLine) {
	col := l.column(l.label(scorer))
	if col.Scorer != scorer {
		return series{}, nil
	}
	scale := 1.0
	authors, hasAuthors := s.Fact(set, "authors")
	if !hasAuthors {
		authors = math.NaN()
	}
	if colMetric := l.metric(col); colMetric != metric {
		if colMetric != report.MetricCorrect || metric != report.MetricAccuracy || !(authors > 0) {
			return series{}, nil
		}
		scale = 1 / authors
	}
	var pts errPoints
	var lines []refLine
	seen := map[report.Epsilon]bool{}
	for _, r := range slices.Backward(rows) {
		if seen[r.Epsilon] && r.Epsilon.Set() {
			continue
		}
		v, found := l.reference(set, col.Label, r.Mechanism, r.Epsilon, authors)
		if !found {
			continue
		}
		if !r.Epsilon.Set() {
			lines = append(lines, refLine{name: "published: " + r.Mechanism, at: v * scale,
				style: draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: dashes[dotted]}})
			continue
		}
		seen[r.Epsilon] = true
		pts.add(r.Epsilon.Value(), v*scale, 0, 0)
	}
	st := publishedStyle
	return series{key: "published", name: "published numbers", pts: pts, reference: true, quiet: true, style: &st}, lines
}

// mechanismsWithEpsilon lists the mechanisms of rows that have an ε, in row order.
func mechanismsWithEpsilon(rows []rowKey) []string {
	var out []string
	for _, r := range rows {
		if r.Epsilon.Set() && !slices.Contains(out, r.Mechanism) {
			out = append(out, r.Mechanism)
		}
	}
	return out
}

// frontierFigure plots, for one set, the attack metric (y) against the utility metric (x): one
// curve per mechanism with ε, its ends labelled by ε, a single marker per mechanism without ε,
// and the chance levels as grey dashed lines; with more than maxSeriesPerPanel curves, small
// multiples. Error bars are the t intervals over repeats. ok is false when no (mechanism, ε)
// has both metrics.
func frontierFigure(s *report.Summary, l Layout, set string) (f *figure, ok bool, err error) {
	fr := l.Frontier
	f = &figure{title: fmt.Sprintf("set %s: privacy–utility frontier", set),
		xLabel:  fmt.Sprintf("%s %s (utility)", l.label(fr.Utility), fr.UtilityMetric),
		yLabel:  fmt.Sprintf("%s %s (attack)", l.label(fr.Attack), fr.AttackMetric),
		xErrors: true}
	rows := tableRows(s, func(c report.Cell) bool { return c.Set == set && c.Mechanism != "" })
	point := func(r rowKey) (u, a report.Cell, found bool) {
		u, ok1 := s.Cell(report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: fr.Utility, Metric: fr.UtilityMetric})
		a, ok2 := s.Cell(report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: fr.Attack, Metric: fr.AttackMetric})
		return u, a, ok1 && ok2
	}
	mechanisms := mechanismsWithEpsilon(rows)
	var marked []string
	for _, r := range rows {
		if !r.Epsilon.Set() && !slices.Contains(marked, r.Mechanism) {
			marked = append(marked, r.Mechanism)
		}
	}
	shown, same := coinciding(marked, func(mech string) (report.Cell, report.Cell, bool) { return point(rowKey{mech, report.NoEpsilon}) })
	xClip, yClip := proportion(fr.UtilityMetric), proportion(fr.AttackMetric)
	clipped := false
	var p panel
	for i, mech := range append(mechanisms, shown...) {
		var pts errPoints
		var tags []string
		for _, r := range slices.Backward(rows) { // ascending ε: the curve ends at the largest
			if u, a, found := point(r); found && r.Mechanism == mech {
				pts.add(u.Mean, a.Mean, u.HalfWidth, a.HalfWidth)
				tags = append(tags, "ε="+r.Epsilon.String())
			}
		}
		if pts.Len() == 0 {
			continue
		}
		ok = true
		clipped = pts.clip(xClip, yClip) || clipped
		sr := series{key: mech, name: mech, pts: pts, tags: tags}
		if i >= len(mechanisms) {
			sr.name, sr.tags, sr.reference = strings.Join(append([]string{mech}, same[mech]...), " = "), nil, true
		}
		p.series = append(p.series, sr)
	}
	if !ok {
		return nil, false, nil
	}
	if clipped {
		if xClip {
			f.xLabel += clippedNote
		}
		if yClip {
			f.yLabel += clippedNote
		}
	}
	if v, found := chance(s, set, fr.Attack, l.task(fr.Attack), fr.AttackMetric); found {
		p.lines = append(p.lines, refLine{name: "chance (attack)", at: v, style: chanceStyle})
	}
	if v, found := chance(s, set, fr.Utility, l.task(fr.Utility), fr.UtilityMetric); found {
		p.lines = append(p.lines, refLine{name: "chance (utility)", at: v, vertical: true, style: chanceStyle})
	}
	f.panels = []panel{p}
	f.smallMultiples()
	return f, true, nil
}

// coinciding groups the mechanisms without ε whose frontier points (utility and attack cells,
// from point) are identical, means and intervals: shown lists one mechanism per point, the first
// in order, and same maps it to the others at that point (none and none-bag for attackers that
// ignore word order), so that the later ones are not hidden under it unnamed.
func coinciding(marked []string, point func(mech string) (u, a report.Cell, found bool)) (shown []string, same map[string][]string) {
	same = map[string][]string{}
	for _, mech := range marked {
		u, a, found := point(mech)
		if !found {
			continue
		}
		merged := false
		for _, prev := range shown {
			pu, pa, _ := point(prev)
			if pu.Mean == u.Mean && pa.Mean == a.Mean && pu.HalfWidth == u.HalfWidth && pa.HalfWidth == a.HalfWidth {
				same[prev] = append(same[prev], mech)
				merged = true
				break
			}
		}
		if !merged {
			shown = append(shown, mech)
		}
	}
	return shown, same
}

func xyOf(p errPoints) []plotter.XY {
	out := make([]plotter.XY, p.Len())
	for i := range out {
		out[i] = plotter.XY{X: p.x[i], Y: p.y[i]}
	}
	return out
}
