package render

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Size of a one-panel figure and of each panel of small multiples. Text uses plot's default
// Liberation fonts, which are compiled in, so PNG and PDF need no installed fonts.
const (
	figureWidth  = 18 * vg.Centimeter
	figureHeight = 11 * vg.Centimeter
	panelWidth   = 6.5 * vg.Centimeter
	panelHeight  = 5.5 * vg.Centimeter
	legendGap    = 0.3 * vg.Centimeter
	figureMargin = 0.15 * vg.Centimeter
	// maxSeriesPerPanel is the most curves one panel draws in colour: a figure with more is
	// drawn as small multiples, one panel per curve with the others in light grey behind.
	maxSeriesPerPanel = 6
	labelSize         = 8
)

var (
	chanceStyle     = draw.LineStyle{Color: color.Gray{Y: 100}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
	ceilingStyle    = draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2), vg.Points(8), vg.Points(2)}}
	behindStyle     = draw.LineStyle{Color: color.Gray{Y: 205}, Width: vg.Points(1)}
	labelBackground = color.NRGBA{R: 255, G: 255, B: 255, A: 235}
	saturatedRing   = draw.GlyphStyle{Color: color.Gray{Y: 0}, Radius: vg.Points(5.5), Shape: draw.RingGlyph{}}
)

// series is one mechanism's points in a figure.
type series struct {
	// key is the mechanism's label, which chooses the style; name is the legend's text.
	key, name string
	pts       errPoints
	// tags label the points ("ε=10"), nil for none; saturated marks points whose estimate is
	// infinite, drawn at their lower bound with a black ring.
	tags      []string
	saturated []bool
	// reference series (a mechanism without ε, or published numbers) are drawn in colour in
	// every panel and get no panel of their own.
	reference bool
	// quiet series get no labels (the legend names them).
	quiet bool
	// style overrides SeriesStyle(key) when set (published numbers, the scorers of a
	// mechanism's panel); the legend shows it in black.
	style *Style
}

// refLine is a horizontal (or vertical) reference line: chance, a mechanism without ε, the
// design's ceiling.
type refLine struct {
	name     string
	vertical bool
	at       float64
	style    draw.LineStyle
}

// panel is one set of axes of a figure.
type panel struct {
	title  string
	series []series // drawn in their styles
	behind []series // drawn in light grey behind, without labels
	lines  []refLine
	// labelAll labels the tagged points of the curves (one curve per panel: its ends and
	// evenly spaced points between, about 6 in all); otherwise only the ends of each curve are
	// labelled and the name goes at its last point.
	labelAll bool
	// logX draws this panel's x axis on a log scale (with figure.ownX).
	logX bool
}

// figure is one or more panels sharing their axes, with one legend to the right, drawn so that
// no two point labels overlap: a label that fits nowhere near its point is left out (the legend
// names every series).
type figure struct {
	title, xLabel, yLabel string
	panels                []panel
	logX, xErrors         bool
	includeZeroX          bool
	// excludeZeroY lets the y axis start near the data instead of at 0.
	excludeZeroY bool
	// ownX gives every panel its own x range (and log scale when panel.logX): panels of
	// mechanisms whose ε are in different units.
	ownX bool
	// placed holds the label boxes of the last rendering, in canvas coordinates (for tests).
	placed []vg.Rectangle
	// styles are the distinct styles of the figure's series keys.
	styles map[string]Style
}

// keys lists the keys of every panel's series, once each, in order.
func (f *figure) keys() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range f.panels {
		for _, s := range p.series {
			if !seen[s.key] {
				seen[s.key] = true
				out = append(out, s.key)
			}
		}
	}
	return out
}

func (f *figure) style(s series) Style {
	if s.style != nil {
		return *s.style
	}
	if f.styles == nil {
		keys := f.keys()
		f.styles = map[string]Style{}
		for i, st := range SeriesStyles(keys) {
			f.styles[keys[i]] = st
		}
	}
	return f.styles[s.key]
}

// smallMultiples turns a one-panel figure of more than maxSeriesPerPanel curves into one
// panel per curve, the other curves in grey behind, references and lines in every panel.
func (f *figure) smallMultiples() {
	if len(f.panels) != 1 {
		return
	}
	p := f.panels[0]
	var curves, refs []series
	for _, s := range p.series {
		if s.reference {
			refs = append(refs, s)
		} else {
			curves = append(curves, s)
		}
	}
	if len(curves) <= maxSeriesPerPanel {
		return
	}
	f.style(series{}) // fixes the styles of every key before the panels reorder the series
	var panels []panel
	for i, c := range curves {
		var behind []series
		for j, o := range curves {
			if j != i {
				behind = append(behind, o)
			}
		}
		panels = append(panels, panel{title: c.name, series: append([]series{c}, refs...), behind: behind, lines: p.lines, labelAll: true})
	}
	f.panels = panels
}

// grid is the panels' columns and rows.
func (f *figure) grid() (cols, rows int) {
	n := len(f.panels)
	cols = int(math.Ceil(math.Sqrt(float64(n))))
	cols = min(cols, 4)
	return cols, (n + cols - 1) / cols
}

// ranges fits the axes to every point with its error bars, every line, and 0 on y (and on x
// with includeZeroX), with a 5 % margin (of the logarithm on a log axis).
func (f *figure) ranges(panels []panel, logX bool) (xlo, xhi, ylo, yhi float64) {
	var xs, ys []float64
	for _, p := range panels {
		for _, s := range append(append([]series{}, p.series...), p.behind...) {
			xs, ys = append(xs, s.pts.xEnds()...), append(ys, s.pts.yEnds()...)
		}
		for _, l := range p.lines {
			if l.vertical {
				xs = append(xs, l.at)
			} else {
				ys = append(ys, l.at)
			}
		}
	}
	ylo, yhi = span(ys, !f.excludeZeroY)
	if !logX {
		xlo, xhi = span(xs, f.includeZeroX)
		return
	}
	var logs []float64
	for _, x := range xs {
		if x > 0 {
			logs = append(logs, math.Log10(x))
		}
	}
	lo, hi := span(logs, false)
	return math.Pow(10, lo), math.Pow(10, hi), ylo, yhi
}

func span(vs []float64, includeZero bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	if includeZero {
		lo, hi = 0, 0
	}
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
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

// logTicks marks 1, 2 and 5 times the powers of ten in [min, max], labelling all of them when
// they are few, else the powers of ten (and always at least two).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow(10, e); v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v)})
			}
		}
	}
	if len(ticks) > 7 {
		powers := 0
		for _, t := range ticks {
			if r := math.Log10(t.Value); math.Abs(r-math.Round(r)) < 1e-9 {
				powers++
			}
		}
		if powers >= 2 { // label the powers of ten only, every stride-th of them when many
			stride := max(1, (powers+3)/4)
			k := 0
			for i, t := range ticks {
				if r := math.Log10(t.Value); math.Abs(r-math.Round(r)) > 1e-9 {
					ticks[i].Label = ""
				} else {
					if k%stride != 0 {
						ticks[i].Label = ""
					}
					k++
				}
			}
		}
	}
	return ticks
}

// tickLabel writes v in full up to 10⁴ (0.05, 2, 5000) and as a power of ten above (1e5, 2e6).
func tickLabel(v float64) string {
	if v < 1e5 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	e := math.Floor(math.Log10(v) + 1e-9)
	return strconv.FormatFloat(v/math.Pow(10, e), 'f', -1, 64) + "e" + strconv.Itoa(int(e))
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

// size is the canvas size: a one-panel figure is figureWidth × figureHeight, small multiples
// panelWidth × panelHeight per panel plus the legend's width.
func (f *figure) size(legendWidth vg.Length) (vg.Length, vg.Length) {
	if len(f.panels) == 1 {
		return figureWidth, figureHeight
	}
	cols, rows := f.grid()
	return vg.Length(cols)*panelWidth + legendWidth + legendGap + 2*figureMargin, vg.Length(rows)*panelHeight + 1.5*vg.Centimeter
}

// render draws the figure in format ("png" or "pdf"). A panic of the drawing library (vgpdf
// panics when it cannot write its font files to the temporary folder) is returned as an error.
func (f *figure) render(format string) (data []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("drawing the %s failed: %v (is the temporary folder %s writable? set TMPDIR to a writable folder)", format, p, os.TempDir())
		}
	}()
	f.placed = nil
	f.linearWhereNotPositive()
	legend := f.legend()
	w, h := f.size(legend.Rectangle(draw.New(vgimg.New(figureWidth, figureHeight))).Size().X)
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.Crop(draw.New(c), figureMargin, -figureMargin, figureMargin, -figureMargin)
	width := legend.Rectangle(dc).Size().X
	area := draw.Crop(dc, 0, -(width + legendGap), 0, 0)
	xlo, xhi, ylo, yhi := f.ranges(f.panels, f.logX)
	cols, rows := f.grid()
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	for i, p := range f.panels {
		pxlo, pxhi := xlo, xhi
		if f.ownX {
			pxlo, pxhi, _, _ = f.ranges([]panel{p}, f.logX || p.logX)
		}
		pl, err := f.panelPlot(p, i, cols, rows, pxhi)
		if err != nil {
			return nil, err
		}
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = pxlo, pxhi, ylo, yhi
		plots[i/cols][i%cols] = pl
	}
	if len(f.panels) == 1 {
		plots[0][0].Title.Text = f.title
		plots[0][0].Draw(area)
	} else {
		title := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(13)), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
		area.FillText(title, vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: area.Max.Y}, f.title)
		xLabel := title
		xLabel.Font.Size, xLabel.YAlign = vg.Points(11), draw.YBottom
		area.FillText(xLabel, vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: area.Min.Y}, f.xLabel)
		yLabel := xLabel
		yLabel.Rotation, yLabel.XAlign, yLabel.YAlign = math.Pi/2, draw.XCenter, draw.YTop
		area.FillText(yLabel, vg.Point{X: area.Min.X, Y: (area.Min.Y + area.Max.Y) / 2}, f.yLabel)
		tiles := draw.Tiles{Cols: cols, Rows: rows, PadTop: title.Height(f.title) + vg.Points(4), PadBottom: xLabel.Height(f.xLabel) + vg.Points(4),
			PadLeft: yLabel.Height(f.yLabel) + vg.Points(4), PadX: vg.Points(4), PadY: vg.Points(4)}
		canvases := plot.Align(plots, tiles, area)
		for r := range plots {
			for col, pl := range plots[r] {
				if pl != nil {
					pl.Draw(canvases[r][col])
				}
			}
		}
	}
	legend.Draw(draw.Crop(dc, dc.Size().X-width, 0, 0, 0))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// legend names every series (once) and every reference line (once).
func (f *figure) legend() plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(10)
	seen := map[string]bool{}
	saturated, behind := false, false
	var ordered []series // curves first, then the references
	for _, p := range f.panels {
		behind = behind || len(p.behind) > 0
		for _, s := range p.series {
			if !s.reference {
				ordered = append(ordered, s)
			}
		}
	}
	for _, p := range f.panels {
		for _, s := range p.series {
			if s.reference {
				ordered = append(ordered, s)
			}
		}
	}
	{
		for _, s := range ordered {
			if seen["s"+s.name] {
				continue
			}
			seen["s"+s.name] = true
			st := f.style(s)
			if s.style != nil {
				st.Colour = black
			}
			line := &plotter.Line{LineStyle: st.Line(vg.Points(1.5))}
			if s.pts.Len() < 2 || s.reference {
				line.LineStyle.Width = 0
			}
			l.Add(s.name, line, &plotter.Scatter{GlyphStyle: st.Glyph()})
			for _, sat := range s.saturated {
				saturated = saturated || sat
			}
		}
	}
	if saturated {
		l.Add("estimate ∞: at its lower bound", &plotter.Scatter{GlyphStyle: saturatedRing})
	}
	for _, p := range f.panels {
		for _, r := range p.lines {
			if !seen["l"+r.name] {
				seen["l"+r.name] = true
				l.Add(r.name, &plotter.Line{LineStyle: r.style})
			}
		}
	}
	if behind {
		l.Add("the other panels' curves", &plotter.Line{LineStyle: behindStyle})
	}
	return l
}

// panelPlot builds panel i's plot: grey curves, reference lines, the panel's curves with their
// error bars, and the label layer.
func (f *figure) panelPlot(p panel, i, cols, rows int, xmax float64) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.title
	if len(f.panels) == 1 { // small multiples: once, below and left of the panels
		pl.X.Label.Text, pl.Y.Label.Text = f.xLabel, f.yLabel
	}
	if len(f.panels) > 1 {
		pl.Title.TextStyle.Font.Size = vg.Points(10)
		pl.X.Label.TextStyle.Font.Size = vg.Points(9)
		pl.Y.Label.TextStyle.Font.Size = vg.Points(9)
	}
	logX := f.logX || (f.ownX && p.logX)
	if logX {
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = logTicks{}
	}
	pl.Add(plotter.NewGrid())
	for _, s := range p.behind {
		if s.pts.Len() < 2 {
			continue
		}
		line, err := plotter.NewLine(positive(s.pts, logX))
		if err != nil {
			return nil, err
		}
		line.LineStyle = behindStyle
		pl.Add(line)
	}
	for _, r := range p.lines {
		r := r
		if r.vertical {
			pl.Add(verticalLine{r})
		} else {
			fn := plotter.NewFunction(func(float64) float64 { return r.at })
			fn.LineStyle = r.style
			pl.Add(fn)
		}
	}
	layer := &labelLayer{fig: f}
	for _, s := range p.series {
		st := f.style(s)
		pts := toAxisEnd(positive(s.pts, logX), xmax)
		if err := addCurve(pl, pts, st, f.xErrors, !s.reference); err != nil {
			return nil, err
		}
		for j, sat := range s.saturated {
			if sat {
				sc, err := plotter.NewScatter(plotter.XYs{{X: pts.x[j], Y: pts.y[j]}})
				if err != nil {
					return nil, err
				}
				sc.GlyphStyle = saturatedRing
				pl.Add(sc)
			}
		}
		layer.obstacles = append(layer.obstacles, xyOf(pts)...)
	}
	for _, s := range p.series { // end labels first: they name the curves
		n := s.pts.Len()
		if n == 0 || s.quiet {
			continue
		}
		text := s.name
		if !p.labelAll || s.reference {
			if len(s.tags) == n && !s.reference {
				text += " " + s.tags[n-1]
			}
			layer.add(s.pts.x[n-1], s.pts.y[n-1], text, f.style(s).textColor())
		}
	}
	for _, s := range p.series {
		n := len(s.tags)
		if s.reference || s.quiet || n != s.pts.Len() {
			continue
		}
		stride := max(1, (n+4)/6) // at most about 6 labels per curve: its ends and every stride-th point
		for j, tag := range s.tags {
			if (p.labelAll && (j%stride == 0 || j == n-1)) || (j == 0 && n > 1) {
				layer.add(s.pts.x[j], s.pts.y[j], tag, f.style(s).textColor())
			}
		}
	}
	pl.Add(layer)
	return pl, nil
}

// linearWhereNotPositive draws on a linear axis a figure (or panel) whose points are not all
// above 0, where a log axis cannot put them (ε > 0 in every config, but results.csv may be
// made by hand), and says so in the axis label.
func (f *figure) linearWhereNotPositive() {
	positive := func(ps []panel) bool {
		for _, p := range ps {
			for _, s := range append(append([]series{}, p.series...), p.behind...) {
				for _, x := range s.pts.x {
					if !(x > 0) {
						return false
					}
				}
			}
		}
		return true
	}
	if f.logX && !positive(f.panels) {
		f.logX = false
		f.xLabel += " (linear: not every value is above 0)"
	}
	for i := range f.panels {
		if f.panels[i].logX && !positive(f.panels[i:i+1]) {
			f.panels[i].logX = false
		}
	}
}

// positive moves, on a log axis, the bars' ends that reach 0 or below to the point itself.
func positive(p errPoints, logX bool) errPoints {
	if !logX {
		return p
	}
	q := p
	q.xlo = append([]float64(nil), p.xlo...)
	for i, x := range p.x {
		if x-q.xlo[i] <= 0 {
			q.xlo[i] = 0
		}
	}
	return q
}

// toAxisEnd shortens a bar that reaches +∞ (an infinite upper bound) to end at xmax, the axis's
// end.
func toAxisEnd(p errPoints, xmax float64) errPoints {
	q := p
	q.xhi = slices.Clone(p.xhi)
	for i, x := range p.x {
		if math.IsInf(q.xhi[i], 1) {
			q.xhi[i] = math.Max(0, xmax-x)
		}
	}
	return q
}

// addCurve adds markers with error bars, joined by a line when joined; xErrors adds
// horizontal bars too.
func addCurve(pl *plot.Plot, pts errPoints, st Style, xErrors, joined bool) error {
	line, scatter, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.LineStyle = st.Line(vg.Points(1.5))
	if !joined {
		line.LineStyle.Width = 0
	}
	scatter.GlyphStyle = st.Glyph()
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	bars.Color = st.Color()
	pl.Add(line, scatter, bars)
	if xErrors {
		xbars, err := plotter.NewXErrorBars(pts)
		if err != nil {
			return err
		}
		xbars.Color = st.Color()
		pl.Add(xbars)
	}
	return nil
}

// verticalLine spans the plot's y range at x.
type verticalLine struct{ refLine }

// Plot implements plot.Plotter.
func (v verticalLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.at)
	c.StrokeLines(v.style, c.ClipLinesY([]vg.Point{{X: x, Y: c.Min.Y}, {X: x, Y: c.Max.Y}})...)
}

// labelLayer draws point labels at draw time, when the canvas positions are known: each label
// takes the first of several places around its point whose box lies inside the axes and
// overlaps no label placed before and no point; a label that fits nowhere is left out.
type labelLayer struct {
	fig       *figure
	items     []labelItem
	obstacles []plotter.XY
}

type labelItem struct {
	x, y  float64
	text  string
	color color.Color
}

func (l *labelLayer) add(x, y float64, text string, clr color.Color) {
	l.items = append(l.items, labelItem{x, y, text, clr})
}

// Plot implements plot.Plotter.
func (l *labelLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	const r = 3.5 // points: a marker's half width
	var blocked []vg.Rectangle
	for _, o := range l.obstacles {
		x, y := trX(o.X), trY(o.Y)
		blocked = append(blocked, vg.Rectangle{Min: vg.Point{X: x - r, Y: y - r}, Max: vg.Point{X: x + r, Y: y + r}})
	}
	for _, it := range l.items {
		sty := draw.TextStyle{Color: it.color, Font: font.From(plot.DefaultFont, vg.Points(labelSize)), Handler: plot.DefaultTextHandler,
			XAlign: draw.XLeft, YAlign: draw.YBottom}
		box := sty.Rectangle(it.text)
		w, h := box.Max.X-box.Min.X, box.Max.Y-box.Min.Y
		ax, ay := trX(it.x), trY(it.y)
		for _, off := range labelOffsets(w, h) {
			at := vg.Point{X: ax + off.X, Y: ay + off.Y}
			rect := vg.Rectangle{Min: vg.Point{X: at.X + box.Min.X, Y: at.Y + box.Min.Y}, Max: vg.Point{X: at.X + box.Max.X, Y: at.Y + box.Max.Y}}
			if !inside(rect, c.Rectangle) || overlapsAny(rect, blocked) || overlapsAny(rect, l.fig.placed) {
				continue
			}
			// a white, slightly transparent box: the label stays legible over lines and bars
			c.FillPolygon(labelBackground, []vg.Point{rect.Min, {X: rect.Max.X, Y: rect.Min.Y}, rect.Max, {X: rect.Min.X, Y: rect.Max.Y}})
			c.FillText(sty, at, it.text)
			l.fig.placed = append(l.fig.placed, rect)
			break
		}
	}
}

// labelOffsets are the places tried for a label of size w × h, from its point to its
// bottom-left corner: right, above right, below right, left, above, below, then further out.
func labelOffsets(w, h vg.Length) []vg.Point {
	var out []vg.Point
	for _, g := range []vg.Length{vg.Points(4.5), vg.Points(11), vg.Points(20)} {
		out = append(out,
			vg.Point{X: g, Y: -h / 2}, vg.Point{X: g, Y: g / 2}, vg.Point{X: g, Y: -h - g/2},
			vg.Point{X: -g - w, Y: -h / 2}, vg.Point{X: -w / 2, Y: g}, vg.Point{X: -w / 2, Y: -g - h},
			vg.Point{X: -g - w, Y: g / 2}, vg.Point{X: -g - w, Y: -h - g/2})
	}
	return out
}

func inside(r, area vg.Rectangle) bool {
	return r.Min.X >= area.Min.X && r.Max.X <= area.Max.X && r.Min.Y >= area.Min.Y && r.Max.Y <= area.Max.Y
}

// overlaps reports whether two rectangles share more than an edge.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

func overlapsAny(r vg.Rectangle, others []vg.Rectangle) bool {
	for _, o := range others {
		if overlaps(r, o) {
			return true
		}
	}
	return false
}
