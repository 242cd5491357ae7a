package render

import (
	"hash/fnv"
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// okabeIto is the colour-blind-safe palette of Okabe and Ito (2008): black, orange, sky blue,
// bluish green, yellow, blue, vermillion, reddish purple.
var okabeIto = []color.Color{
	color.RGBA{0x00, 0x00, 0x00, 0xff},
	color.RGBA{0xe6, 0x9f, 0x00, 0xff},
	color.RGBA{0x56, 0xb4, 0xe9, 0xff},
	color.RGBA{0x00, 0x9e, 0x73, 0xff},
	color.RGBA{0xf0, 0xe4, 0x42, 0xff},
	color.RGBA{0x00, 0x72, 0xb2, 0xff},
	color.RGBA{0xd5, 0x5e, 0x00, 0xff},
	color.RGBA{0xcc, 0x79, 0xa7, 0xff},
}

// Palette indices of okabeIto, for the fixed table.
const (
	black = iota
	orange
	skyBlue
	green
	yellow
	blue
	vermillion
	purple
)

// markers are the point shapes: outlined ring, box, triangle, cross, plus, then filled circle,
// box and triangle.
var markers = []draw.GlyphDrawer{
	draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
}

// Marker indices of markers, for the fixed table.
const (
	ring = iota
	square
	triangle
	cross
	plus
	disc
	box
	pyramid
)

// dashes are the line patterns: solid, dashed, dotted, dash-dot.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2.5)},
	{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)},
}

// Dash indices of dashes, for the fixed table.
const (
	solid = iota
	dashed
	dotted
	dashDot
)

// Style is how a mechanism's series is drawn: a colour of the Okabe–Ito palette, a marker and
// a line pattern. The indices name them, so that two styles can be compared.
type Style struct {
	// Colour, Marker and Dash index okabeIto, markers and dashes.
	Colour, Marker, Dash int
}

// Color is the series' colour.
func (s Style) Color() color.Color { return okabeIto[s.Colour] }

// textColor is the colour of the series' labels: its colour, but yellow darkened to olive, as
// thin yellow text on white cannot be read.
func (s Style) textColor() color.Color {
	if s.Colour == yellow {
		return color.RGBA{0x9a, 0x8c, 0x00, 0xff}
	}
	return s.Color()
}

// Line is the series' line style at the given width.
func (s Style) Line(width vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: s.Color(), Width: width, Dashes: dashes[s.Dash]}
}

// Glyph is the series' marker style.
func (s Style) Glyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: s.Color(), Radius: vg.Points(3), Shape: markers[s.Marker]}
}

// fixedStyles are the styles of the registry's mechanisms and of the labels the committed
// configs give them, chosen by family (black for the baselines, vermillion, blue and sky blue
// for the embedding-noise mechanisms, orange, green and purple for the exponential ones), all
// (colour, marker, dash) triples distinct.
var fixedStyles = map[string]Style{
	"none":              {black, disc, solid},
	"none-bag":          {black, ring, dashed},
	"random":            {black, cross, dotted},
	"scrub":             {black, plus, dashDot},
	"emd":               {vermillion, ring, solid},
	"emd-drop":          {vermillion, square, dashed},
	"cmp":               {blue, triangle, solid},
	"mahalanobis":       {skyBlue, square, solid},
	"vickrey":           {green, cross, solid},
	"santext":           {orange, disc, solid},
	"santext+":          {orange, box, dashed},
	"tem":               {purple, pyramid, solid},
	"truncated-gumbel":  {yellow, pyramid, dashed},
	"custext":           {green, box, dashed},
	"custext+":          {green, ring, dotted},
	"syntf":             {skyBlue, plus, dashed},
	"expmech":           {purple, ring, dashed},
	"expmech-embedding": {purple, square, dashed},
	"expmech-context":   {purple, triangle, dotted},
	"expmech-random":    {purple, cross, dashDot},
	"erae":              {blue, disc, dashed},
	"erae-plain":        {blue, ring, dotted},
	"ae-dp":             {blue, cross, dashDot},
}

// styleCount is the number of distinct (colour, marker, dash) triples.
var styleCount = len(okabeIto) * len(markers) * len(dashes)

// styleAt is the i-th triple: colours vary fastest, then markers, then dashes.
func styleAt(i int) Style {
	i %= styleCount
	return Style{Colour: i % len(okabeIto), Marker: i / len(okabeIto) % len(markers), Dash: i / (len(okabeIto) * len(markers))}
}

// SeriesStyle is the style of the series of the mechanism labelled label, the same in every
// figure of every run: the fixed table's for the registry's mechanisms, else one drawn from a
// hash of the label. Two labels outside the table may share a style; SeriesStyles keeps the
// styles of one figure distinct.
func SeriesStyle(label string) Style {
	if s, ok := fixedStyles[label]; ok {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(label))
	return styleAt(int(h.Sum32() % uint32(styleCount)))
}

// SeriesStyles gives the series of one figure their styles: each label its SeriesStyle, except
// that a label outside the fixed table whose style another label of the figure already has takes
// the next free triple. The result is deterministic and distinct for up to styleCount labels
// (labels repeated in the list share a style).
func SeriesStyles(labels []string) []Style {
	out := make([]Style, len(labels))
	used := map[Style]bool{}
	given := map[string]Style{}
	for i, l := range labels { // the fixed styles first, so that no fallback takes one
		if s, ok := fixedStyles[l]; ok {
			out[i], used[s], given[l] = s, true, s
		}
	}
	for i, l := range labels {
		if s, ok := given[l]; ok {
			out[i] = s
			continue
		}
		s := SeriesStyle(l)
		start := s.Colour + len(okabeIto)*(s.Marker+len(markers)*s.Dash)
		for k := 0; k < styleCount && used[s]; k++ {
			s = styleAt(start + k + 1)
		}
		out[i], used[s], given[l] = s, true, s
	}
	return out
}
