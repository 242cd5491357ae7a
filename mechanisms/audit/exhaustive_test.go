package audit

import (
	"math"
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
)

// exhaustivePairs takes, for each pair, the largest |ln P(w|x) − ln P(w|y)| over the outputs at
// least one of x, y releases: an output neither releases (both −Inf) is skipped, one only one of
// them releases makes the loss +Inf, and the pair with the largest loss per claim unit is
// reported with the first output attaining it. Checked against a plain loop on distributions
// with outputs released by neither, by one, and by both. Mutant: an output neither releases
// taken as a loss (its NaN difference counted) → the finding differs.
func TestExhaustivePairsSkipsOutputsNeitherReleases(t *testing.T) {
	rng := rngs.New(3, "audit/exhaustive")
	const words, outputs = 12, 40
	store := fixtures.RandomStore(t, rng, words, 4, 1)
	dists := map[string][]float64{}
	out := make([]string, outputs)
	for o := range out {
		out[o] = store.Word(o % words)
	}
	for r := range words {
		lp := make([]float64, outputs)
		for o := range lp {
			lp[o] = math.Log(rng.Float64())
			if o < outputs/2 { // the first half of the outputs: released by none of the words
				lp[o] = math.Inf(-1)
			}
		}
		if r == 5 { // an output the other words release and word 5 never does
			lp[outputs-1] = math.Inf(-1)
		}
		dists[store.Word(r)] = lp
	}
	target := &Target{Store: store, OutputWords: out,
		LogProbabilities: func(x string) ([]float64, bool) { lp, ok := dists[x]; return lp, ok },
		WordUnits:        func(x, y string) float64 { return 1 + float64(len(x)+len(y))/10 }}
	for _, n := range []int{4, words} { // without word 5 (every loss finite), and with it
		got, ok := exhaustivePairs(target, n)
		if !ok {
			t.Fatalf("n = %d: no finding", n)
		}
		wantBound, wantUnits, found := math.Inf(-1), 1.0, false
		var wantX, wantOut string
		for i := range n {
			for j := i + 1; j < n; j++ {
				x, y := store.Word(i), store.Word(j)
				units := target.WordUnits(x, y)
				best, arg := 0.0, 0
				for o := range outputs {
					a, b := dists[x][o], dists[y][o]
					if math.IsInf(a, -1) && math.IsInf(b, -1) {
						continue
					}
					if d := math.Abs(a - b); d > best {
						best, arg = d, o
					}
				}
				if !found || best/units > wantBound/wantUnits {
					found, wantBound, wantUnits, wantX, wantOut = true, best, units, x, out[arg]
				}
			}
		}
		if got.Bound != wantBound || got.X[0] != wantX || got.Output != wantOut {
			t.Errorf("n = %d: bound %v between %s… at output %s; the plain loop: %v between %s… at %s", n, got.Bound, got.X[0], got.Output, wantBound, wantX, wantOut)
		}
		if n == words && !math.IsInf(got.Bound, 1) {
			t.Errorf("with word 5, which never releases an output the others do: bound %v, want +Inf", got.Bound)
		}
	}
}
