package verdict

import (
	"math"
	"sort"
	"strconv"
)

// EpsilonRange is the ε a mechanism accepts (its mechanisms.EpsilonRange), the bounds of a
// search.
type EpsilonRange struct{ Min, Max float64 }

// SearchRule says when a level is bracketed closely enough: a point at or above the level +
// Margin·SE and one at or below the level − Margin·SE (so that nearly every bootstrap
// replicate finds the level inside the grid), and the two points around the level no more
// than Width·SE apart on the privacy axis (so that the straight line between them is short
// against the position's own sampling error), SE being the cluster-robust standard error of
// the attack's mean at those points. DefaultSearchRule: Margin 2, Width 2.
type SearchRule struct{ Margin, Width float64 }

// DefaultSearchRule is the rule of the [verdict] search on the attack axis.
var DefaultSearchRule = SearchRule{Margin: 2, Width: 2}

// EmpiricalSearchRule is the rule of the search on the empirical-ε axis ([distinguish]
// verdict_levels). Its margin, about Φ⁻¹(1 − 1/40,002) ≈ 4.06, keeps a curve bracketing the
// level in nearly every one of B = 20,000 replicates: a replicate in which a curve does not
// bracket the level counts against each of its comparisons (and a pair reaching it in fewer
// than 1 − α/2 of the replicates is not compared at all), and a comparison of a family of
// hundreds needs a marginal p far below α. With margin 2 (the attack axis's), a point falls
// short in about 2 % of replicates (TestEmpiricalAxisPower: a utility gap of 0.15 is found at a
// Bonferroni bound over 500 comparisons in 0.40 of simulated studies with margin 2, 0.75 with
// margin 4). The distinguisher's accuracy is precise enough (about ±0.02 to ±0.05) for such points to be near the level; the attack's 0/1 score
// over 30 authors is not, and keeps margin 2.
var EmpiricalSearchRule = SearchRule{Margin: 4, Width: 2}

// Proposal is one ε to add to a mechanism's grid, and why.
type Proposal struct {
	Mechanism string
	Epsilon   float64
	Reason    string
}

// Propose inspects each mechanism's curve (the points of its own grid; the baseline and
// mechanisms without ε are ignored) at each level of spec and returns the ε to add so that
// every level becomes bracketed by the rule. Outside the bracket: where a level lies beyond
// the grid's largest ε, a larger ε (×4; ×2 for the margin), while the attack still rises with
// ε at the grid's top; where it lies beyond the smallest, a smaller one (÷4; ÷2), always
// clamped to the range. Inside: where the two points around the level are too far apart, the
// midpoint in log ε between them (bisection: the new ε depends on the data only through which
// bracket holds the level; the secant point, placed at the sample's own crossing, made the
// intervals 10 % too narrow in TestSearchCoverage, covering 0.907). At most one ε outside and
// one inside per mechanism, level and round, each rounded to three significant digits and
// new to the grid. ends lists the mechanisms whose smallest ε is the range's Min while the
// attack there is still above a level: they do not reach it within their ε range. On a fixed
// axis (spec.Axis) the positions have no sampling error: only levels beyond the grid are
// searched.
func Propose(spec Spec, rule SearchRule, cluster []int, nClusters int, points []CurvePoint, ranges map[string]EpsilonRange) (props []Proposal, ends map[string]bool) {
	res := &Result{}
	curves, _ := buildCurves(spec.Baseline, points, res)
	ends = map[string]bool{}
	for _, cv := range curves {
		rng, ok := ranges[cv.name]
		if !ok {
			rng = EpsilonRange{0, math.Inf(1)}
		}
		pos, se := make([]float64, len(cv.points)), make([]float64, len(cv.points))
		eps := make([]float64, len(cv.points))
		for k, p := range cv.points {
			eps[k] = p.Epsilon.Value()
			if spec.Axis != "" {
				pos[k] = p.X
				continue
			}
			pos[k], se[k] = clusterMeanSE(p.Scores[spec.Attack], cluster, nClusters)
		}
		var mine []float64
		add := func(e float64, why string) {
			e = round3(math.Min(math.Max(e, rng.Min), rng.Max))
			for _, x := range append(eps, mine...) {
				if math.Abs(math.Log(e/x)) < math.Log(1.05) {
					return // already in the grid (or proposed)
				}
			}
			mine = append(mine, e)
			props = append(props, Proposal{cv.name, e, why})
		}
		last := len(pos) - 1
		// rising: the attack still rises with ε at the grid's top (a flat top — a destructive
		// mechanism, or the unprivatised text's own accuracy — gains nothing from a larger ε).
		rising := last == 0 || pos[0] > pos[1]
		for _, level := range spec.Levels {
			k, _, st := crossing(pos, level)
			// Outside: the level beyond the grid, or an end within the margin.
			switch {
			case st == StatusBelowAtStart:
				if eps[0] < rng.Max && rising {
					add(eps[0]*4, "the level lies beyond its largest ε")
				}
			case st == StatusNeverReached:
				if eps[last] > rng.Min {
					add(eps[last]/4, "the level lies beyond its smallest ε")
				} else {
					ends[cv.name] = true
				}
			case spec.Axis != "":
				// a fixed axis: the positions are exact, no margin
			case pos[0]-rule.Margin*se[0] < level && eps[0] < rng.Max && rising:
				add(eps[0]*2, "its largest ε is within the margin above the level")
			case pos[last]+rule.Margin*se[last] > level && eps[last] > rng.Min:
				add(eps[last]/2, "its smallest ε is within the margin below the level")
			}
			// Inside: the bracket too wide against the attack's sampling error.
			if st == StatusReached && spec.Axis == "" && k+1 < len(pos) && pos[k]-pos[k+1] > rule.Width*math.Max(se[k], se[k+1]) {
				add(math.Sqrt(eps[k]*eps[k+1]), "the bracket is wide against the attack's sampling error")
			}
		}
	}
	sort.SliceStable(props, func(i, j int) bool { return props[i].Mechanism < props[j].Mechanism })
	return props, ends
}

// clusterMeanSE is the mean of x (NaN ignored) and its cluster-robust standard error over the
// n clusters: √(n/(n−1)·Σ_c (S_c − m·N_c)²)/N for cluster sums S_c and counts N_c.
func clusterMeanSE(x []float64, cluster []int, n int) (mean, se float64) {
	s := sumByCluster(x, cluster, n)
	var tot, cnt float64
	for c := range s.sum {
		tot += s.sum[c]
		cnt += s.count[c]
	}
	if cnt == 0 || n < 2 {
		return math.NaN(), math.NaN()
	}
	mean = tot / cnt
	var ss float64
	for c := range s.sum {
		d := s.sum[c] - mean*s.count[c]
		ss += d * d
	}
	return mean, math.Sqrt(float64(n)/float64(n-1)*ss) / cnt
}

// round3 rounds ε to three significant digits (a grid value a config could name).
func round3(e float64) float64 {
	x, _ := strconv.ParseFloat(strconv.FormatFloat(e, 'g', 3, 64), 64)
	return x
}
