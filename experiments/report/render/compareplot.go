package render

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MovedCell is one cell of a comparison of a run with a baseline as the figure of what moved
// shows it: its label, its change (run − baseline, in the unit of the cell's means) and its
// band, the smallest change of the cell flagged at the baseline's size (0: any change is; NaN:
// its test has no threshold in the metric's unit, and the cell is drawn at the clip when moved,
// else at 0).
type MovedCell struct {
	Label        string
	Change, Band float64
	Moved        bool
}

// MaxMovedCells is the number of cells the figure of what moved shows: every moved cell
// first, then the others by the size of their change relative to their band.
const MaxMovedCells = 20

// movedClip is where the figure clips a change, in bands: a cell without spread moves by
// millions of its 10⁻⁹ tolerance band.
const movedClip = 10

// ComparisonFigure draws cells (at most MaxMovedCells, chosen by the caller) in format ("png"
// or "pdf"): one row per cell, its change in units of its band (clipped at ±10 bands, the
// label then saying so), the band ±1 as dashed lines; moved cells red, the others grey.
func ComparisonFigure(title string, cells []MovedCell, format string) (data []byte, err error) {
	if len(cells) == 0 {
		return nil, fmt.Errorf("no cell to draw")
	}
	defer func() {
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("drawing the %s failed: %v (is the temporary folder %s writable? set TMPDIR to a writable folder)", format, p, os.TempDir())
		}
	}()
	pl := plot.New()
	pl.Title.Text = title
	pl.X.Label.Text = "change (run − baseline) in units of the smallest change flagged"
	pl.Legend.Top = true
	moved, kept := plotter.XYs{}, plotter.XYs{}
	var ticks []plot.Tick
	var xs []float64
	for i, c := range cells {
		y := float64(len(cells) - i)
		x := bands(c)
		label := c.Label
		if math.Abs(x) >= movedClip {
			label += fmt.Sprintf(" (%+.3g)", c.Change)
		}
		if c.Moved {
			moved = append(moved, plotter.XY{X: x, Y: y})
		} else {
			kept = append(kept, plotter.XY{X: x, Y: y})
		}
		ticks = append(ticks, plot.Tick{Value: y, Label: label})
		xs = append(xs, x)
	}
	pl.Y.Tick.Marker = plot.ConstantTicks(ticks)
	pl.Y.Tick.Label.Font.Size = vg.Points(7)
	pl.Y.Min, pl.Y.Max = 0.3, float64(len(cells))+0.7
	lo, hi := span(append(xs, -1.2, 1.2), true)
	pl.X.Min, pl.X.Max = lo, hi
	for _, s := range []struct {
		name string
		pts  plotter.XYs
		clr  color.Color
	}{{"moved", moved, color.RGBA{R: 200, A: 255}}, {"not moved", kept, color.Gray{Y: 120}}} {
		if len(s.pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.clr, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		pl.Add(sc)
		pl.Legend.Add(s.name, sc)
	}
	for i, x := range []float64{-1, 1} {
		line, err := plotter.NewLine(plotter.XYs{{X: x, Y: pl.Y.Min}, {X: x, Y: pl.Y.Max}})
		if err != nil {
			return nil, err
		}
		line.LineStyle = chanceStyle
		pl.Add(line)
		if i == 0 {
			pl.Legend.Add("band: smallest change flagged", line)
		}
	}
	w, err := pl.WriterTo(figureWidth, figureHeight, format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// bands is a cell's change in units of its band, clipped at ±movedClip (a band of 0: any change
// is flagged, so a change is at the clip).
func bands(c MovedCell) float64 {
	switch {
	case c.Change == 0 || math.IsNaN(c.Change):
		return 0
	case math.IsNaN(c.Band) && !c.Moved:
		return 0
	case c.Band > 0:
		return math.Max(-movedClip, math.Min(movedClip, c.Change/c.Band))
	}
	return math.Copysign(movedClip, c.Change)
}
