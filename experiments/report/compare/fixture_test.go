package compare

import (
	"math"
	"os"
	"testing"

	"dptext/experiments/report"
)

// fixturePath is the fixture run of experiments/report/render (fixtureRows of its tests, shaped like Table 1 of
// Fernandes et al.: sets 20 and 50, none and emd at ε = 30 … 10, four scorers, five repeats),
// kept equal to it by render's TestFixtureCSVHoldsFixtureRows.
const fixturePath = "../render/testdata/fixture-results.csv"

// fixtureRows reads experiments/report/render's fixture run.
func fixtureRows(t *testing.T) []report.Row {
	t.Helper()
	f, err := os.Open(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := report.ReadRows(f, fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// epsOrNone is ε = v, absent for NaN (the fixtures' mark of a mechanism without ε).
func epsOrNone(v float64) report.Epsilon {
	if math.IsNaN(v) {
		return report.NoEpsilon
	}
	return report.EpsilonOf(v)
}
