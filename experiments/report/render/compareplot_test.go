package render

import (
	"bytes"
	"image/png"
	"testing"
)

// The figure of what moved draws a PNG, refuses an empty list, and places each cell at its
// change in bands, clipped at ±10 (a band of 0, a cell without spread, at the clip when it
// changed). Deterministic. Mutant: without the clip a change of a million bands is placed at
// −10⁶, and this fails.
func TestComparisonFigure(t *testing.T) {
	cells := []MovedCell{
		{Label: "8/emd/10/mechanism/unchanged_words", Change: 372, Band: 93, Moved: true},
		{Label: "8/emd/5/privacy/epsilon_doc", Change: 0.5, Band: 0, Moved: true},
		{Label: "8/emd/5/sr-nn/correct", Change: -0.3, Band: 2},
	}
	data, err := ComparisonFigure("run against baseline", cells, "png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if _, err := ComparisonFigure("nothing", nil, "png"); err == nil {
		t.Error("an empty figure was drawn")
	}
	for _, tc := range []struct {
		c    MovedCell
		want float64
	}{{cells[0], 4}, {cells[1], 10}, {cells[2], -0.15}, {MovedCell{Change: -1e6, Band: 1}, -10}, {MovedCell{Change: 0, Band: 0}, 0}} {
		if got := bands(tc.c); got != tc.want {
			t.Errorf("bands(%+v) = %v, want %v", tc.c, got, tc.want)
		}
	}
}
