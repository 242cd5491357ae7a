package render

import (
	"bytes"
	"dptext/experiments/report"
	"fmt"
	"image/color"
	"math"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size of every figure. Axes are linear: ε and accuracies may be 0, where a log axis panics.
// Text uses plot's default Liberation fonts, which are compiled in, so PNG and PDF need no
// installed fonts.
const (
	figureWidth  = 18 * vg.Centimeter
	figureHeight = 11 * vg.Centimeter
	legendGap    = 0.3 * vg.Centimeter
	figureMargin = 0.15 * vg.Centimeter
)

var (
	chanceStyle   = draw.LineStyle{Color: color.Gray{Y: 100}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
	referenceDash = []vg.Length{vg.Points(2), vg.Points(2)}
)

// figure is a plot with its legend kept apart, drawn to the right of the axes so that it never
// covers data.
type figure struct {
	plot   *plot.Plot
	legend plot.Legend
	// xs and ys collect every plotted value (with error ends) to fit the axes.
	xs, ys []float64
}

func newFigure(title, xLabel, yLabel string) *figure {
	f := &figure{plot: plot.New(), legend: plot.NewLegend()}
	f.plot.Title.Text = title
	f.plot.X.Label.Text = xLabel
	f.plot.Y.Label.Text = yLabel
	f.plot.Add(plotter.NewGrid())
	f.legend.Top, f.legend.Left = true, true
	f.legend.TextStyle.Font.Size = vg.Points(10)
	return f
}

// fit sets both axes to cover every collected value with a 5 % margin, including 0 on y.
func (f *figure) fit(includeZeroX bool) {
	lo, hi := span(f.xs, includeZeroX)
	f.plot.X.Min, f.plot.X.Max = lo, hi
	lo, hi = span(f.ys, true)
	f.plot.Y.Min, f.plot.Y.Max = lo, hi
}

func span(vs []float64, includeZero bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	if includeZero {
		lo, hi = 0, 0
	}
	for _, v := range vs {
		if !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 0) {
		return 0, 1
	}
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = math.Max(1, math.Abs(hi)) * 0.05
	}
	return lo - pad, hi + pad
}

// CheckTempDir fails when the temporary folder (os.TempDir: $TMPDIR, else /tmp) cannot hold a
// new folder: the PDF plots convert their fonts there (gonum's vgpdf, once per process), and
// without it they would fail only after every cell of a run is computed. A run and `dptext
// report` call it before they start.
func CheckTempDir() error {
	d, err := os.MkdirTemp("", "dptext-tmpdir-check-")
	if err != nil {
		return fmt.Errorf("the temporary folder %s (TMPDIR) cannot be used: %w; the PDF plots convert their fonts there: set TMPDIR to a writable folder", os.TempDir(), err)
	}
	return os.RemoveAll(d)
}

// render draws the figure in format ("png" or "pdf"). A panic of the drawing library (vgpdf
// panics when it cannot write its font files to the temporary folder) is returned as an error.
func (f *figure) render(format string) (data []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("drawing the %s failed: %v (is the temporary folder %s writable? set TMPDIR to a writable folder)", format, p, os.TempDir())
		}
	}()
	c, err := draw.NewFormattedCanvas(figureWidth, figureHeight, format)
	if err != nil {
		return nil, err
	}
	dc := draw.Crop(draw.New(c), figureMargin, -figureMargin, figureMargin, -figureMargin)
	width := f.legend.Rectangle(dc).Size().X
	f.plot.Draw(draw.Crop(dc, 0, -(width + legendGap), 0, 0))
	f.legend.Draw(draw.Crop(dc, dc.Size().X-width, 0, 0, 0))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

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

// curve adds a line with markers and error bars; xErrors adds horizontal bars too.
func (f *figure) curve(name string, pts errPoints, clr color.Color, shape draw.GlyphDrawer, xErrors bool) error {
	line, scatter, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.Color, line.Width = clr, vg.Points(1.5)
	scatter.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(3), Shape: shape}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	bars.Color = clr
	f.plot.Add(line, scatter, bars)
	if xErrors {
		xbars, err := plotter.NewXErrorBars(pts)
		if err != nil {
			return err
		}
		xbars.Color = clr
		f.plot.Add(xbars)
	}
	f.legend.Add(name, line, scatter)
	f.xs, f.ys = append(f.xs, pts.xEnds()...), append(f.ys, pts.yEnds()...)
	return nil
}

// horizontal adds a line at height y across the plot.
func (f *figure) horizontal(name string, y float64, style draw.LineStyle) {
	fn := plotter.NewFunction(func(float64) float64 { return y })
	fn.LineStyle = style
	f.plot.Add(fn)
	f.legend.Add(name, fn)
	f.ys = append(f.ys, y)
}

// vertical adds a line at x spanning the fitted y range; call after fit.
func (f *figure) vertical(name string, x float64, style draw.LineStyle) error {
	line, err := plotter.NewLine(plotter.XYs{{X: x, Y: f.plot.Y.Min}, {X: x, Y: f.plot.Y.Max}})
	if err != nil {
		return err
	}
	line.LineStyle = style
	f.plot.Add(line)
	f.legend.Add(name, line)
	return nil
}

// metricFigure plots metric against ε for one set: one curve per (scorer, mechanism with ε), the
// value of each mechanism without ε (such as none) as a dotted line in the scorer's colour, and
// chance as a grey dashed line. ok is false when no mechanism with ε reports the metric.
func metricFigure(s *report.Summary, l Layout, set, metric string) (f *figure, ok bool, err error) {
	f = newFigure(fmt.Sprintf("set %s: %s against ε", set, metric), "ε", metric)
	var scorers []string
	for _, sc := range s.Scorers(set) {
		if sc != report.SplitScorer && slices.Contains(s.Metrics(set, sc), metric) {
			scorers = append(scorers, sc)
		}
	}
	rows := tableRows(s, func(c report.Cell) bool { return c.Set == set && c.Mechanism != "" && c.Metric == metric })
	mechanisms := mechanismsWithEpsilon(rows)
	for si, sc := range scorers {
		clr := plotutil.Color(si)
		for mi, mech := range mechanisms {
			var pts errPoints
			for _, r := range slices.Backward(rows) { // ascending ε
				if c, found := s.Cell(report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: sc, Metric: metric}); found && r.Mechanism == mech {
					pts.add(r.Epsilon.Value(), c.Mean, 0, c.HalfWidth)
				}
			}
			if pts.Len() == 0 {
				continue
			}
			if proportion(metric) && pts.clip(false, true) && !strings.HasSuffix(f.plot.Y.Label.Text, clippedNote) {
				f.plot.Y.Label.Text += clippedNote
			}
			if err := f.curve(l.label(sc)+" · "+mech, pts, clr, plotutil.Shape(mi), false); err != nil {
				return nil, false, err
			}
			ok = true
		}
		for k, r := range rows {
			if r.Epsilon.Set() {
				continue
			}
			if c, found := s.Cell(report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: sc, Metric: metric}); found {
				style := draw.LineStyle{Color: clr, Width: vg.Points(1), Dashes: referenceDash}
				if r.Mechanism != "none" {
					style.Dashes = plotutil.Dashes(4 + k)
				}
				f.horizontal(l.label(sc)+" · "+r.Mechanism, c.Mean, style)
			}
		}
	}
	if !ok {
		return nil, false, nil
	}
	var tasks []string
	for _, sc := range scorers {
		task := l.task(sc)
		if v, found := chance(s, set, sc, task, metric); found && !slices.Contains(tasks, task) {
			tasks = append(tasks, task)
			style := chanceStyle
			if len(tasks) > 1 {
				style.Dashes = plotutil.Dashes(4) // dash-dot, to tell the second chance level apart
			}
			f.horizontal("chance ("+task+")", v, style)
		}
	}
	f.fit(false)
	return f, true, nil
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
// curve per mechanism with ε, its points labelled by ε, a single marker per mechanism without ε,
// and the chance levels as grey dashed lines. Error bars are the t intervals over repeats.
// ok is false when no (mechanism, ε) has both metrics.
func frontierFigure(s *report.Summary, l Layout, set string) (f *figure, ok bool, err error) {
	fr := l.Frontier
	f = newFigure(fmt.Sprintf("set %s: privacy–utility frontier", set),
		fmt.Sprintf("%s %s (utility)", l.label(fr.Utility), fr.UtilityMetric),
		fmt.Sprintf("%s %s (attack)", l.label(fr.Attack), fr.AttackMetric))
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
	var placed []plotter.XY // label anchors so far, to move a label off one already there
	var xr, yr []float64
	for _, r := range rows {
		if u, a, found := point(r); found {
			xr, yr = append(xr, u.Mean), append(yr, a.Mean)
		}
	}
	xlo, xhi := span(xr, true)
	ylo, yhi := span(yr, true)
	near := func(p, q plotter.XY) bool {
		return math.Abs(p.X-q.X) < 0.03*(xhi-xlo) && math.Abs(p.Y-q.Y) < 0.03*(yhi-ylo)
	}
	xClip, yClip := proportion(fr.UtilityMetric), proportion(fr.AttackMetric)
	clipped := false
	for i, mech := range append(mechanisms, shown...) {
		var pts errPoints
		var labels []string
		for _, r := range rows {
			if u, a, found := point(r); found && r.Mechanism == mech {
				pts.add(u.Mean, a.Mean, u.HalfWidth, a.HalfWidth)
				labels = append(labels, "ε="+r.Epsilon.String())
			}
		}
		if pts.Len() == 0 {
			continue
		}
		ok = true
		clr := plotutil.Color(i)
		name := mech
		if i >= len(mechanisms) {
			name = strings.Join(append([]string{mech}, same[mech]...), " = ")
			labels = []string{name}
		}
		clipped = pts.clip(xClip, yClip) || clipped
		if err := f.curve(name, pts, clr, plotutil.Shape(i), true); err != nil {
			return nil, false, err
		}
		for j, xy := range xyOf(pts) {
			k := 0
			for _, q := range placed {
				if near(xy, q) {
					k++
				}
			}
			placed = append(placed, xy)
			tag, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{xy}, Labels: []string{labels[j]}})
			if err != nil {
				return nil, false, err
			}
			tag.TextStyle[0].Font.Size = vg.Points(8)
			tag.TextStyle[0].Color = clr
			tag.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(3 - 9*float64(k))}
			f.plot.Add(tag)
		}
	}
	if clipped {
		if xClip {
			f.plot.X.Label.Text += clippedNote
		}
		if yClip {
			f.plot.Y.Label.Text += clippedNote
		}
	}
	if !ok {
		return nil, false, nil
	}
	attackChance, hasAttack := chance(s, set, fr.Attack, l.task(fr.Attack), fr.AttackMetric)
	if hasAttack {
		f.horizontal("chance (attack)", attackChance, chanceStyle)
	}
	utilityChance, hasUtility := chance(s, set, fr.Utility, l.task(fr.Utility), fr.UtilityMetric)
	if hasUtility {
		f.xs = append(f.xs, utilityChance)
	}
	f.fit(true)
	if hasUtility {
		if err := f.vertical("chance (utility)", utilityChance, chanceStyle); err != nil {
			return nil, false, err
		}
	}
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
