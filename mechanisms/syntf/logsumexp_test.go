package syntf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// synTFLogSumExpPrevious is synTFLogSumExp as it was before it skipped the zero terms and took
// the exponentials four at a time (2026-11-29): the yardstick of TestLogSumExpEqualsPrevious.
func synTFLogSumExpPrevious(row []float32, scale float64) float64 {
	m := float32(math.Inf(-1))
	for _, u := range row {
		m = max(m, u)
	}
	sum := 0.0
	for _, u := range row {
		sum += math.Exp(scale * float64(u-m))
	}
	return scale*float64(m) + math.Log(sum)
}

// synTFLogSumExp gives the previous value bit for bit — so ℓ, and every number built on it, is
// unchanged — on rating rows like SynTF's (clipped cosines in [−1, 1], ties, a repeated
// maximum, rows of one value, NaN) at scales from 0.01 to 10⁵, where from none to nearly all
// of the terms are zero. Mutant: a cut at −30 (terms e^−30 dropped) fails it. Cuts from −746 up
// to −40 drop only terms too small to move these sums, so the test cannot tell them apart; that
// the cut drops only exact zeros is TestExpIsZeroBelowTheCut's.
func TestLogSumExpEqualsPrevious(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 1))
	rows := [][]float32{{0}, {1, 1, 1}, {-1, 1}, {0.5, float32(math.NaN()), 0.25}}
	for range 40 {
		n := 1 + rng.IntN(3000)
		row := make([]float32, n)
		for i := range row {
			switch rng.IntN(4) {
			case 0:
				row[i] = float32(rng.IntN(5))/4 - 0.5 // ties
			default:
				row[i] = float32(min(1, max(-1, 0.4*rng.NormFloat64())))
			}
		}
		rows = append(rows, row)
	}
	buf := make([]float64, 3000)
	for _, row := range rows {
		for _, scale := range []float64{0.01, 1, 37.5, 350, 700, 745, 746, 747, 1000, 3000, 1e5} {
			got, want := synTFLogSumExp(row, scale, buf), synTFLogSumExpPrevious(row, scale)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("row of %d, scale %g: %v, previous %v", len(row), scale, got, want)
			}
		}
	}
}

// math.Exp is +0 at expZeroBelow and below it (down to −∞): the cut drops only terms math.Exp
// itself makes zero. Mutant: a cut at −740 fails (math.Exp(−740) is a subnormal above zero).
func TestExpIsZeroBelowTheCut(t *testing.T) {
	for x := expZeroBelow; x > -2000; x -= 0.001 {
		if e := math.Exp(x); e != 0 || math.Signbit(e) {
			t.Fatalf("math.Exp(%v) = %v, want +0", x, e)
		}
	}
	for _, x := range []float64{-1e6, -1e300, math.Inf(-1)} {
		if e := math.Exp(x); e != 0 || math.Signbit(e) {
			t.Fatalf("math.Exp(%v) = %v, want +0", x, e)
		}
	}
	if math.Exp(-745) == 0 {
		t.Fatal("math.Exp(−745) is 0: the cut could be higher, the test's premise is wrong")
	}
}

// A cached ℓ is read only by code that computes ℓ as the code that wrote it: the cache key holds
// ellCodePrint, ℓ of this code on a canary. Here "other code" is a print put in its memo: ℓ
// computed under it and then under the real print lands in two cache files, not one. Mutant:
// the key without ellCodePrint → one file, the entry of the other code read (fails). By hand
// (2026-11-29), the print changes with the rating's clip at 0.999 instead of 1 and with the
// normaliser's zero cut at −1; it does not with the search skipping its last block of source
// words, whose rows hold no extreme on the canary (the limit of any canary).
func TestEllCacheKeyHoldsTheCode(t *testing.T) {
	store := randomSynTFStore(t, 4, 60, 8)
	o := DefaultSynTFOptions()
	o.EllCacheDir = t.TempDir()
	key := fmt.Sprintf("%x\x00%x\x00%s", math.Float64bits(5), math.Float64bits(o.BigramFactor), o.Clip)
	real := ellCodePrint(5, o)
	ellCodePrints.Store(key, "code of another dptext\x00")
	first, err := ComputeEll(store, 5, o, 1)
	ellCodePrints.Store(key, real)
	if err != nil {
		t.Fatal(err)
	}
	second, err := ComputeEll(store, 5, o, 1)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(o.EllCacheDir, "syntf-ell-*.json"))
	if len(files) != 2 {
		t.Errorf("%d cache files after ℓ under two codes: want 2 (the second code must not read the first's entry)", len(files))
	}
	if first.Ell != second.Ell {
		t.Errorf("ℓ %v and %v: the same code computed both", first.Ell, second.Ell)
	}
}
