package verdict

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/internal/rngs"
)

// dependentDesign is configs/mechanisms.toml's design with the dependence of its verdict
// file: 30 authors × 14 items, 8 mechanisms on a grid of claimed ε 1, 2, 3, three utilities
// sharing every item, and five levels (1.2, 1.5, 1.8 between ε 1 and 2; 2.3, 2.7 between 2 and
// 3) interpolated from the same points: 28 pairs × 3 utilities × 5 levels = 420 comparisons
// (the file compares 426). A mechanism × item effect (sd 0.6 on each utility's scale against 0.4
// for a release's own noise) correlates a mechanism's points, as the same texts do in a run.
// Its weight is chosen so that the first step's critical value is the file's: 3.96 standard
// errors against 3.95 (with 0.4 it is 4.06, with 0.7 3.92).
var dependentDesign = studyDesign{epsilons: []float64{1, 2, 3}, mechItem: 0.6}

// dependentSpec compares the dependent design's five levels with B = 17,000 ≥ 2m/α replicates.
func dependentSpec() Spec {
	spec := familySpec(17000)
	spec.Levels = []float64{1.2, 1.5, 1.8, 2.3, 2.7}
	spec.LevelNames = []string{"1.2", "1.5", "1.8", "2.3", "2.7"}
	return spec
}

// shiftedFamily is a study's family when the mechanism loser keeps gap less of one utility at
// every point: the comparisons of the result with the loser's replicates and estimate on that
// utility lowered by gap (exactly what a shift of its item scores does: the curves are linear
// in them on a fixed axis). target indexes the comparison (a, loser) at level, and sign is +1
// when its Diff reads a − loser.
type shiftedFamily struct {
	res    *Result
	base   []comparison
	lower  []float64 // per comparison: −1 when the loser is its A, +1 when its B, 0 otherwise
	target int
}

func newShiftedFamily(res *Result, a, loser, utility string, level int) shiftedFamily {
	f := shiftedFamily{res: res, target: -1}
	for _, p := range res.Pairs {
		if !p.Compared {
			continue
		}
		c := comparison{x: res.reps.vals[p.a], y: res.reps.vals[p.b], diff: p.Diff, se: p.SE, clusters: res.Clusters}
		low := 0.0
		if p.Utility == utility {
			switch loser {
			case p.A:
				low = -1
			case p.B:
				low = 1
			}
		}
		if p.Utility == utility && p.Level == level && (p.A == a && p.B == loser || p.A == loser && p.B == a) {
			f.target = len(f.base)
		}
		f.base = append(f.base, c)
		f.lower = append(f.lower, low)
	}
	return f
}

// at returns the family's comparisons at the gap and the target's signed difference a − loser.
func (f shiftedFamily) at(gap float64) ([]comparison, float64) {
	cs := make([]comparison, len(f.base))
	for k, c := range f.base {
		cs[k] = c
		switch f.lower[k] {
		case 1: // the loser is B: B's replicates fall by gap, the difference grows
			cs[k].y = shifted(c.y, -gap)
			cs[k].diff = c.diff + gap
		case -1:
			cs[k].x = shifted(c.x, -gap)
			cs[k].diff = c.diff - gap
		}
	}
	t := cs[f.target]
	return cs, t.diff * f.lower[f.target]
}

func shifted(xs []float64, by float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x + by
	}
	return out
}

// stepdownFinds says whether the stepdown declares the target in the right direction at gap.
func (f shiftedFamily) stepdownFinds(gap float64) bool {
	cs, signed := f.at(gap)
	return signed > 0 && stepdown(cs, f.res.reps.B, 0.05).adj[f.target] < 0.05
}

// holmFinds says whether Holm's procedure over normal (Student-t corrected) p-values of the
// same statistics declares the target in the right direction at gap: Holm without a
// resampling floor, the best Holm can do here.
func (f shiftedFamily) holmFinds(gap float64) bool {
	cs, signed := f.at(gap)
	ps := make([]float64, len(cs))
	for k, c := range cs {
		ps[k] = 2 * distuv.UnitNormal.Survival(c.t())
	}
	return signed > 0 && Holm(ps)[f.target] < 0.05
}

// smallestFound is the smallest gap of the ascending grid at which finds holds, by bisection
// (both procedures are monotone in the gap: it raises the target's statistic and every
// other shifted one's), or +∞ when the largest does not.
func smallestFound(grid []float64, finds func(float64) bool) float64 {
	lo, hi := 0, len(grid) // finds(grid[hi]) holds; grid[lo-1] does not
	if !finds(grid[hi-1]) {
		return math.Inf(1)
	}
	hi--
	for lo < hi {
		mid := (lo + hi) / 2
		if finds(grid[mid]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return grid[hi]
}

// Power on configs/mechanisms.toml's design with its dependence (dependentDesign: 420
// comparisons, 30 authors × 14 items): the smallest gap that the stepdown and Holm find 80 %
// of the time, side by side. One mechanism (m07) keeps gap less of the smallest-scale utility
// (u2, item sd 0.05) at every ε than the others, which are copies; the target is m00 − m07 at
// level 1.5. In each of 30 studies the smallest gap each procedure finds is located on a grid
// of steps of 0.0002 (2 % of the gaps found), on the same data and replicates for both (each
// gap shifts m07's scores; the test checks once that the shifted family equals a study
// recomputed from shifted scores). The 80 %-gap is the 24th smallest of the 30.
//
// Measured (printed; docs/statistics.md quotes it): first-step critical value 3.96 standard
// errors against Holm's 4.52; the stepdown's 80 %-gap is 0.0104 (0.21 item sd), Holm's 0.0116:
// 0.90 of it (medians 0.0086 and 0.0098: 0.88), and the stepdown finds the smaller gap in all
// 30 studies. The test asserts a ratio ≤ 0.95 at the 80 % point and at the median, and the
// smaller gap in ≥ 24 of 30 studies (a procedure no better than Holm reaches that with
// probability ≤ 0.001 by the sign test). The expected ratio from the critical values is
// (3.96 + 0.84)/(4.52 + 0.84) = 0.90 and the grid resolves 2 %, so the correct procedure
// fails the ratio bound only if its 80 % point is mis-estimated by 5 %, about two standard
// deviations of a 24th-of-30 order statistic on a paired design: under 1 % (seed fixed). A
// stepdown that ignores the dependence (the ranks of each comparison shuffled, the mutant run
// for issue 43) has Holm's critical value and fails both.
func TestPowerAgainstHolmWithRealisticDependence(t *testing.T) {
	const studies = 30
	var grid []float64
	for g := 0.0060; g <= 0.0160; g += 0.0002 {
		grid = append(grid, g)
	}
	spec := dependentSpec()
	rng := rngs.New(43, "power-dependence")
	var mine, holm []float64
	var crit float64
	wins, losses := 0, 0
	for s := range studies {
		cluster, points := familyStudyOn(rng, 30, 14, make([][3]float64, 8), dependentDesign)
		w := ClusterWeights(rng, 30, spec.Replicates)
		res, err := MatchedWeights(spec, cluster, 30, points, w)
		if err != nil {
			t.Fatal(err)
		}
		f := newShiftedFamily(res, "m00", "m07", "u2", 1)
		if f.target < 0 || len(f.base) != 420 {
			t.Fatalf("study %d: %d comparisons, target %d: want 420 and the target compared", s, len(f.base), f.target)
		}
		g, h := smallestFound(grid, f.stepdownFinds), smallestFound(grid, f.holmFinds)
		mine, holm = append(mine, g), append(holm, h)
		switch {
		case g < h:
			wins++
		case h < g:
			losses++
		}
		if s == 0 {
			crit = checkShiftedFamily(t, f, cluster, points, w, g)
		}
	}
	slices.Sort(mine)
	slices.Sort(holm)
	k := int(math.Ceil(0.8*studies)) - 1
	holmFirst := fromNormal(distuv.UnitNormal.Quantile(1-0.05/(2*420)), 30)
	t.Logf("420 comparisons, first step's critical value %.2f standard errors (Holm's %.2f): the smallest gap found in 80 %% of %d studies is %.4f (%.2f item sd) by the stepdown and %.4f (%.2f) by Holm: ratio %.2f; medians %.4f and %.4f; the stepdown finds a smaller gap in %d studies, Holm in %d",
		crit, holmFirst, studies, mine[k], mine[k]/0.05, holm[k], holm[k]/0.05, mine[k]/holm[k], mine[studies/2], holm[studies/2], wins, losses)
	for _, q := range []struct {
		name string
		at   int
	}{{"80 %", k}, {"median", studies / 2}} {
		if mine[q.at] > 0.95*holm[q.at] {
			t.Errorf("the stepdown's %s gap %.4f is not 5 %% below Holm's %.4f", q.name, mine[q.at], holm[q.at])
		}
	}
	if wins < 24 {
		t.Errorf("the stepdown finds the smaller gap in %d of %d studies, Holm in %d: want ≥ 24", wins, studies, losses)
	}
}

// checkShiftedFamily recomputes study f from its points with m07's u2 scores lowered by gap
// and checks that the full path (MatchedWeights, AdjustFamilies) gives the target the adjusted
// p the shifted family gives; it returns the family's first-step critical value.
func checkShiftedFamily(t *testing.T, f shiftedFamily, cluster []int, points []CurvePoint, w [][]float64, gap float64) float64 {
	t.Helper()
	moved := make([]CurvePoint, len(points))
	for i, p := range points {
		moved[i] = p
		if p.Mechanism == "m07" {
			moved[i].Scores = map[string][]float64{}
			for u, xs := range p.Scores {
				moved[i].Scores[u] = xs
			}
			moved[i].Scores["u2"] = shifted(p.Scores["u2"], -gap)
		}
	}
	res, err := MatchedWeights(f.res.Spec, cluster, f.res.Clusters, moved, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := AdjustFamilies([]*Result{res}, nil); err != nil {
		t.Fatal(err)
	}
	cs, _ := f.at(gap)
	want := stepdown(cs, f.res.reps.B, 0.05).adj[f.target]
	for _, p := range res.Pairs {
		if p.Utility == "u2" && p.Level == 1 && p.A == "m00" && p.B == "m07" {
			if math.Abs(p.Adj-want) > 3.0/float64(f.res.reps.B+1) {
				t.Errorf("recomputed from shifted scores the target's adjusted p is %g, the shifted family's %g", p.Adj, want)
			}
			return res.Families[0].Critical
		}
	}
	t.Fatalf("recomputed from shifted scores, m00 − m07 on u2 at level 1.5 is not oriented m00 first")
	return 0
}
