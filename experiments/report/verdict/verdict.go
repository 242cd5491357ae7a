// Package verdict compares mechanisms at matched privacy: each mechanism's utility where its attack
// accuracy falls to a level, interpolated only between points of its own ε grid, with paired
// cluster-bootstrap intervals over authors, p-values by inverting those intervals and Holm's
// correction over a family of comparisons (the statistics of verdict.md and verdict.csv).
package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"dptext/experiments/report"
	"dptext/internal/stats"
)

// Spec says which comparisons a verdict table makes: the utility each mechanism keeps
// when its ε is lowered until the attacker's accuracy falls to each level.
type Spec struct {
	// Attack is the scorer whose per-item scores (in CurvePoint.Scores) set the privacy level:
	// its 0/1 correctness, or another per-item measure of the attack named by Measure.
	Attack string
	// Measure names the attack's per-item measure in the text when it is not the attacker's
	// accuracy (e.g. "reciprocal rank"; "" reads accuracy).
	Measure string
	// Levels are the attack's values (its mean per-item score: accuracy, or Measure) to
	// match, and LevelNames how the table names them
	// (e.g. "chance + 0.05").
	Levels     []float64
	LevelNames []string
	// Utilities are the scorers whose item scores are compared (a classifier's per-item
	// correctness, or a utility measure's per-item value).
	Utilities []string
	// Baseline is the mechanism without privatising (normally none). It is no point of any
	// curve (its utility is no setting of another mechanism): the table reports, per level,
	// the share of bootstrap replicates in which the baseline itself already meets the level,
	// and of those in which only it does. Empty: not reported.
	Baseline string
	// Replicates of the cluster bootstrap, Confidence of the intervals and Alpha the
	// family-wise error rate of the verdicts (Holm over every comparison of the family:
	// AdjustFamily).
	Replicates int
	Confidence float64
	Alpha      float64
	// Axis, when not empty, names a fixed privacy axis that replaces the attack's accuracy
	// (e.g. "claimed ε per document (pure)"): each point's position is its CurvePoint.X, the
	// same in every bootstrap replicate (only the utilities are resampled), and the levels are
	// values of that axis. The rules are the attack's: a level is reached between two points
	// of a mechanism's own grid, never beyond it. Use it without a Baseline.
	Axis string
	// RangeEnds, keyed by mechanism, says that the mechanism's grid already holds the smallest
	// ε of its range (a search for the level went there): a level its curve does not reach is
	// then "does not reach within its ε range", not a matter of the grid.
	RangeEnds map[string]bool
	// Notes are sentences printed under the table's heading (e.g. points left out).
	Notes []string
}

// CurvePoint is one mechanism at one ε: every scorer's score of every item (1 or 0 for a
// classifier's correct or wrong answer, a measure's value, NaN when unscored), all points
// scored on the same items.
type CurvePoint struct {
	Mechanism string
	// Epsilon is absent for a mechanism without ε.
	Epsilon report.Epsilon
	// X is the point's position on Spec.Axis (unused without one).
	X      float64
	Scores map[string][]float64
}

// Statuses of a Cell: where the level lies against the mechanism's curve at the point
// estimate.
const (
	// StatusReached: the level lies between two points of the mechanism's grid (or at one).
	StatusReached = "reached"
	// StatusNeverReached: the attack (or the position on a fixed axis) stays above the level
	// at every ε of the grid; nothing is extrapolated beyond the smallest ε.
	StatusNeverReached = "never reaches"
	// StatusBelowAtStart: the attack is already at or below the level at the grid's largest
	// ε: the level lies beyond the grid on the side of weaker privacy, and nothing is
	// claimed (the segment towards the unprivatised text is no setting of the mechanism).
	StatusBelowAtStart = "below the level already at its largest ε"
	// StatusAboveGrid: on a fixed axis (Spec.Axis), the level lies above the curve's
	// first point (the largest ε of its grid): not reached, nothing is extrapolated.
	StatusAboveGrid = "above its grid (not reached)"
)

// Cell is the utility a mechanism keeps at one attack level: the utility interpolated
// linearly in attack accuracy between the two consecutive points of its own grid (ordered by
// falling ε) where the attack first falls to the level or below.
type Cell struct {
	Mechanism, Utility string
	Level              int // index into Spec.Levels
	Status             string
	// MinAttack is the lowest attack accuracy of the curve, or on a fixed axis its lowest
	// position (for StatusNeverReached); MaxAxis the highest position (the attack at the
	// largest ε for StatusBelowAtStart, the highest position on a fixed axis for
	// StatusAboveGrid).
	MinAttack, MaxAxis float64
	// Value and its interval (over the replicates in which the curve reaches the level); NaN
	// unless reached. Reached is the share of bootstrap replicates in which the curve reaches
	// the level; OnlyBaseline the share in which the baseline meets the level and the curve
	// does not reach it (NaN without a baseline).
	Value, Low, High, Reached, OnlyBaseline float64
}

// Pair compares two mechanisms that both reach a level at the point estimate, oriented so
// that A keeps at least as much as B: Diff = A − B ≥ 0 (more − less).
type Pair struct {
	A, B, Utility string
	Level         int
	// Diff and its interval at Spec.Confidence (ConservativeInterval: replicates in which A or
	// B does not reach the level counted against the difference); P its p-value by inverting
	// that interval (InvertedP) and Adj P after Holm's correction over the family.
	Diff, Low, High, P, Adj float64
	// Reached is the share of replicates in which both curves reach the level: the share the
	// comparison rests on.
	Reached float64
	// Verdict is "A keeps more U than B at attack ≤ level" where Adj < Alpha, else "no
	// significant difference".
	Verdict string
}

// Result is the verdict table of one set.
type Result struct {
	Spec     Spec
	Clusters int
	Items    int
	Cells    []Cell
	Pairs    []Pair
	// Baseline holds, per level, the baseline's attack accuracy at the point estimate and the
	// share of replicates in which it already meets the level (empty without a baseline).
	Baseline []BaselineLevel
	// Excluded lists mechanisms without an ε grid (other than the baseline).
	Excluded []string
	// Family is the number of comparisons Holm's correction ran over (AdjustFamily), and
	// FamilyTables the number of tables they come from.
	Family, FamilyTables int
	// Halves holds the replication of each significant verdict on two disjoint halves of the
	// authors, when CheckHalves was called.
	Halves        []HalfCheck
	halvesChecked bool
}

// BaselineLevel is the baseline at one level: its attack accuracy and the share of replicates
// in which it is at or below the level (the level asks for no privatising there).
type BaselineLevel struct {
	Attack, Meets float64
}

// curve is one mechanism's points in order of falling ε.
type curve struct {
	name   string
	points []*CurvePoint
}

// Matched interpolates every mechanism's utilities at the attack levels and compares every
// pair, with a cluster bootstrap over authors (cluster[i] is the author index of item i, of
// nClusters): each replicate resamples authors once and recomputes every point's means with
// the same weights, so the curves and their differences are resampled together (paired).
// Holm's correction runs over the pairs of this result; AdjustFamily widens it to several.
func Matched(spec Spec, cluster []int, nClusters int, points []CurvePoint, rng *rand.Rand) (*Result, error) {
	scorers := spec.Utilities
	if spec.Axis == "" {
		scorers = append([]string{spec.Attack}, scorers...)
	}
	for _, p := range points {
		for _, name := range scorers {
			x, ok := p.Scores[name]
			if !ok {
				return nil, fmt.Errorf("verdict: scorer %q has no item scores for mechanism %s", name, p.Mechanism)
			}
			if len(x) != len(cluster) {
				return nil, fmt.Errorf("verdict: scorer %q has %d item scores for mechanism %s, want %d", name, len(x), p.Mechanism, len(cluster))
			}
		}
	}
	res := &Result{Spec: spec, Clusters: nClusters, Items: len(cluster)}
	curves, base := buildCurves(spec.Baseline, points, res)
	sums := newSums(spec, curves, base, cluster, nClusters)
	weights := ClusterWeights(rng, nClusters, spec.Replicates)
	ones := make([]float64, nClusters)
	for i := range ones {
		ones[i] = 1
	}
	est := sums.evaluate(spec, ones)
	reps := make([]evaluation, len(weights))
	for b, w := range weights {
		reps[b] = sums.evaluate(spec, w)
	}
	if base != nil {
		for _, level := range spec.Levels {
			meets := 0
			for _, r := range reps {
				if r.base <= level {
					meets++
				}
			}
			res.Baseline = append(res.Baseline, BaselineLevel{Attack: est.base, Meets: float64(meets) / float64(len(reps))})
		}
	}
	for c, cv := range curves {
		lo, hi := axisRange(est.pos[c])
		for l, level := range spec.Levels {
			st := est.status[c][l]
			for u, name := range spec.Utilities {
				cell := Cell{Mechanism: cv.name, Utility: name, Level: l, Status: st, MinAttack: lo, MaxAxis: hi,
					Value: est.value[c][l][u], Low: math.NaN(), High: math.NaN(), Reached: math.NaN(), OnlyBaseline: math.NaN()}
				if st == StatusBelowAtStart {
					cell.MaxAxis = est.pos[c][0]
				}
				if st == StatusReached {
					xs := make([]float64, len(reps))
					for b := range reps {
						xs[b] = reps[b].value[c][l][u]
					}
					cell.Low, cell.High = ExpandedPercentileInterval(xs, spec.Confidence, nClusters)
					cell.Reached = shareFinite(xs)
				}
				if base != nil {
					only := 0
					for _, r := range reps {
						if r.base <= level && r.status[c][l] != StatusReached {
							only++
						}
					}
					cell.OnlyBaseline = float64(only) / float64(len(reps))
				}
				res.Cells = append(res.Cells, cell)
			}
		}
	}
	for l := range spec.Levels {
		for u, name := range spec.Utilities {
			for a := range curves {
				for b := a + 1; b < len(curves); b++ {
					if est.status[a][l] != StatusReached || est.status[b][l] != StatusReached {
						continue // a level not reached by both at the estimate is no comparison
					}
					x, y := a, b
					if est.value[b][l][u] > est.value[a][l][u] {
						x, y = b, a
					}
					d := make([]float64, len(reps))
					for r := range reps {
						d[r] = reps[r].value[x][l][u] - reps[r].value[y][l][u]
					}
					sortedLow, sortedHigh := againstClaim(d)
					lo, hi := conservativeInterval(sortedLow, sortedHigh, spec.Confidence, nClusters)
					res.Pairs = append(res.Pairs, Pair{A: curves[x].name, B: curves[y].name, Utility: name, Level: l,
						Diff: est.value[x][l][u] - est.value[y][l][u], Low: lo, High: hi, P: invertedP(sortedLow, sortedHigh, nClusters), Reached: shareFinite(d)})
				}
			}
		}
	}
	AdjustFamily(res)
	return res, nil
}

// AdjustFamily applies Holm's correction once over every pair of the results (one family:
// e.g. every table of verdict.md), setting each pair's Adj and Verdict and each result's
// Family. A result's own Spec.Alpha decides its verdicts.
func AdjustFamily(results ...*Result) {
	var ps []float64
	for _, r := range results {
		for _, p := range r.Pairs {
			ps = append(ps, p.P)
		}
	}
	adj := Holm(ps)
	i := 0
	for _, r := range results {
		r.Family, r.FamilyTables = len(ps), len(results)
		for k := range r.Pairs {
			p := &r.Pairs[k]
			p.Adj = adj[i]
			i++
			p.Verdict = "no significant difference"
			if p.Adj < r.Spec.Alpha {
				p.Verdict = fmt.Sprintf("%s keeps more %s than %s at %s", p.A, p.Utility, p.B, r.Spec.levelText(p.Level))
			}
		}
	}
}

// buildCurves groups the points by mechanism in order of falling ε and returns the baseline's
// point apart; mechanisms without ε other than the baseline go to res.Excluded.
func buildCurves(baseline string, points []CurvePoint, res *Result) ([]curve, *CurvePoint) {
	var base *CurvePoint
	byMech := map[string][]*CurvePoint{}
	var order []string
	for i := range points {
		p := &points[i]
		if baseline != "" && p.Mechanism == baseline {
			base = p
			continue
		}
		if !p.Epsilon.Set() {
			res.Excluded = append(res.Excluded, p.Mechanism)
			continue
		}
		if byMech[p.Mechanism] == nil {
			order = append(order, p.Mechanism)
		}
		byMech[p.Mechanism] = append(byMech[p.Mechanism], p)
	}
	var curves []curve
	for _, m := range order {
		ps := byMech[m]
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].Epsilon.Compare(ps[j].Epsilon) < 0 }) // larger ε first
		curves = append(curves, curve{m, ps})
	}
	return curves, base
}

// clusterSum is one score of one point summed per cluster over its scored items (sum) and the
// number of those items (count): a weighted mean is then Σ w·sum / Σ w·count.
type clusterSum struct{ sum, count []float64 }

func sumByCluster(x []float64, cluster []int, n int) clusterSum {
	s := clusterSum{make([]float64, n), make([]float64, n)}
	for i, v := range x {
		if !math.IsNaN(v) {
			s.sum[cluster[i]] += v
			s.count[cluster[i]]++
		}
	}
	return s
}

func (s clusterSum) mean(w []float64) float64 {
	var num, den float64
	for c, x := range s.sum {
		num += w[c] * x
		den += w[c] * s.count[c]
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// sums holds every curve's scores summed per cluster: att[c][k] (nil on a fixed axis) and
// util[c][u][k] for point k of curve c, and the baseline's attack (nil without one).
type sums struct {
	curves []curve
	att    [][]clusterSum
	util   [][][]clusterSum
	base   *clusterSum
}

func newSums(spec Spec, curves []curve, base *CurvePoint, cluster []int, n int) *sums {
	s := &sums{curves: curves, att: make([][]clusterSum, len(curves)), util: make([][][]clusterSum, len(curves))}
	for c, cv := range curves {
		s.util[c] = make([][]clusterSum, len(spec.Utilities))
		for u, name := range spec.Utilities {
			for _, p := range cv.points {
				s.util[c][u] = append(s.util[c][u], sumByCluster(p.Scores[name], cluster, n))
			}
		}
		if spec.Axis == "" {
			for _, p := range cv.points {
				s.att[c] = append(s.att[c], sumByCluster(p.Scores[spec.Attack], cluster, n))
			}
		}
	}
	if base != nil && spec.Axis == "" {
		if x, ok := base.Scores[spec.Attack]; ok && len(x) == len(cluster) {
			b := sumByCluster(x, cluster, n)
			s.base = &b
		}
	}
	return s
}

// evaluation is one set of cluster weights evaluated: each curve's positions pos[c][k], its
// status and interpolated utility at every level (value[c][l][u], NaN where not reached), and
// the baseline's attack (NaN without one).
type evaluation struct {
	pos    [][]float64
	status [][]string
	value  [][][]float64
	base   float64
}

// evaluate interpolates every curve's utilities at every level under the cluster weights w.
func (s *sums) evaluate(spec Spec, w []float64) evaluation {
	e := evaluation{pos: make([][]float64, len(s.curves)), status: make([][]string, len(s.curves)),
		value: make([][][]float64, len(s.curves)), base: math.NaN()}
	if s.base != nil {
		e.base = s.base.mean(w)
	}
	for c, cv := range s.curves {
		pos := make([]float64, len(cv.points))
		for k, p := range cv.points {
			if spec.Axis != "" {
				pos[k] = p.X
			} else {
				pos[k] = s.att[c][k].mean(w)
			}
		}
		e.pos[c] = pos
		e.status[c] = make([]string, len(spec.Levels))
		e.value[c] = make([][]float64, len(spec.Levels))
		for l, level := range spec.Levels {
			k, t, st := crossing(pos, level)
			if spec.Axis != "" && st == StatusBelowAtStart {
				st = StatusAboveGrid
			}
			e.status[c][l] = st
			e.value[c][l] = make([]float64, len(spec.Utilities))
			for u := range spec.Utilities {
				v := math.NaN()
				if st == StatusReached {
					hi := s.util[c][u][k].mean(w)
					v = hi
					if t > 0 {
						v = hi + t*(s.util[c][u][k+1].mean(w)-hi)
					}
				}
				e.value[c][l][u] = v
			}
		}
	}
	return e
}

// crossing locates level on a curve's positions pos (in order of falling ε): the level lies
// between points k and k+1 at the fraction t of the way (pos[k] > level ≥ pos[k+1]), or at
// point k itself (t = 0: pos[k] = level), with StatusReached; StatusBelowAtStart when
// pos[0] < level (the level lies beyond the grid's largest ε), StatusNeverReached when every
// point is above it.
func crossing(pos []float64, level float64) (k int, t float64, status string) {
	if len(pos) == 0 {
		return 0, 0, StatusNeverReached
	}
	if pos[0] == level {
		return 0, 0, StatusReached
	}
	if pos[0] < level {
		return 0, 0, StatusBelowAtStart
	}
	for k := 0; k+1 < len(pos); k++ {
		if pos[k+1] <= level {
			return k, (pos[k] - level) / (pos[k] - pos[k+1]), StatusReached
		}
	}
	return 0, 0, StatusNeverReached
}

// axisRange is the lowest and highest of a curve's positions.
func axisRange(pos []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range pos {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// axisName names the privacy axis: the spec's Axis, or the attack.
func (s Spec) axisName() string {
	if s.Axis != "" {
		return s.Axis
	}
	if s.Measure != "" {
		return s.Attack + " " + s.Measure
	}
	return s.Attack
}

// measureName names the attack's per-item measure.
func (s Spec) measureName() string {
	if s.Measure != "" {
		return s.Measure
	}
	return "accuracy"
}

// levelText states level l as a verdict reads it: "koppel11 ≤ 0.1", or "claimed ε … = 5".
func (s Spec) levelText(l int) string {
	if s.Axis != "" {
		return fmt.Sprintf("%s = %.4g", s.Axis, s.Levels[l])
	}
	return fmt.Sprintf("%s ≤ %.3g", s.axisName(), s.Levels[l])
}

func shareFinite(xs []float64) float64 {
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// num formats an interval end: ±∞ where unreached replicates counted against it make it so.
func num(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "−∞"
	}
	return fmt.Sprintf("%.3f", x)
}

// Markdown renders the verdict: the utilities at each level with intervals, then the
// significant verdicts and the pairs compared.
func (v *Result) Markdown(set string) string {
	var b strings.Builder
	s := v.Spec
	method := fmt.Sprintf("%d items of %d authors; %.0f %% intervals from a cluster bootstrap over authors (%d replicates, Hesterberg's expanded percentile interval). "+
		"Pairs: the difference (more − less) with its %.0f %% interval, in which the replicates where a curve does not reach the level count against the difference; "+
		"p-values by inverting that interval on the same replicates (the smallest α at which the interval at 1 − α excludes 0, never below 1/(B+1) = %.2g), so p < %.2g exactly when the interval excludes 0; "+
		"Holm's correction over %s, α = %g.",
		v.Items, v.Clusters, 100*s.Confidence, s.Replicates, 100*s.Confidence, 1/float64(s.Replicates+1), 1-s.Confidence, v.familyText(), s.Alpha)
	if s.Axis != "" {
		fmt.Fprintf(&b, "## Verdicts at matched %s, set %s\n\n", s.Axis, set)
		fmt.Fprintf(&b, "Utility each mechanism of this unit keeps at each level of %s (a position fixed per grid point, the same for every item): linear interpolation between the two ε of the mechanism's own grid that bracket the level; a level outside the grid is not reached, nothing is extrapolated. %s\n\n",
			s.Axis, method)
	} else {
		fmt.Fprintf(&b, "## Verdicts at matched privacy, set %s\n\n", set)
		fmt.Fprintf(&b, "Utility kept where %s's %s falls to each level: linear interpolation between the two ε of the mechanism's own grid that bracket the level (no segment towards %s, no extrapolation; a replicate in which the grid does not bracket the level has no value). %s\n\n",
			s.Attack, s.measureName(), orDash(s.Baseline), method)
	}
	if floor := 1 / float64(s.Replicates+1); v.Family > 0 && floor >= s.Alpha/float64(v.Family) {
		fmt.Fprintf(&b, "With %d replicates no p-value is below %.2g, and Holm's first step over %d comparisons needs one below %.2g: raise `replicates` above %d for a verdict to be possible.\n\n",
			s.Replicates, floor, v.Family, s.Alpha/float64(v.Family), int(math.Ceil(float64(v.Family)/s.Alpha)))
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "%s\n\n", n)
	}
	for l := range s.Levels {
		fmt.Fprintf(&b, "### %s (%s)\n\n", s.levelText(l), s.LevelNames[l])
		if l < len(v.Baseline) {
			bl := v.Baseline[l]
			fmt.Fprintf(&b, "%s's own %s %s is %.3f; it meets this level in %.1f %% of replicates.\n\n", s.Baseline, s.Attack, s.measureName(), bl.Attack, 100*bl.Meets)
		}
		v.levelTable(&b, l)
		b.WriteString("\nSignificant:\n\n")
		found, compared := false, 0
		for _, p := range v.Pairs {
			if p.Level != l {
				continue
			}
			compared++
			if p.Adj < s.Alpha {
				fmt.Fprintf(&b, "- %s: difference %.3f [%s, %s], p = %.2g, Holm p = %.2g; both reach the level in %.1f %% of replicates\n",
					p.Verdict, p.Diff, num(p.Low), num(p.High), p.P, p.Adj, 100*p.Reached)
				found = true
			}
		}
		switch {
		case compared == 0:
			b.WriteString("- nothing to compare: fewer than two mechanisms reach this level\n")
		case !found:
			fmt.Fprintf(&b, "- no significant difference in any of the %d comparisons at this level\n", compared)
		}
		b.WriteString("\n")
	}
	if w := v.WidthsText(); w != "" {
		fmt.Fprintf(&b, "%s\n\n", w)
	}
	if len(v.Excluded) > 0 {
		fmt.Fprintf(&b, "Not compared (no ε grid): %s.\n\n", strings.Join(v.Excluded, ", "))
	}
	if v.halvesChecked {
		v.halvesMarkdown(&b)
	}
	return b.String()
}

// WidthsText says how precise this table's matched utilities are, to read beside another
// axis's: per utility, the median half-width (High − Low)/2 of the intervals of every reached
// cell over all levels, with its smallest and largest. "" when no cell is reached.
func (v *Result) WidthsText() string {
	var parts []string
	n := 0
	for _, u := range v.Spec.Utilities {
		var hw []float64
		for _, c := range v.Cells {
			if c.Utility == u && c.Status == StatusReached && !math.IsNaN(c.Low) && !math.IsNaN(c.High) {
				hw = append(hw, (c.High-c.Low)/2)
			}
		}
		if len(hw) == 0 {
			continue
		}
		n = len(hw)
		sort.Float64s(hw)
		parts = append(parts, fmt.Sprintf("%s ± %.3f [%.3f, %.3f]", u, stats.Median(hw), hw[0], hw[len(hw)-1]))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Precision of this table: the half-width of the %.0f %% interval of each matched utility, median [smallest, largest] over the %d mechanism-levels reached: %s.",
		100*v.Spec.Confidence, n, strings.Join(parts, "; "))
}

// familyText names the family of Holm's correction.
func (v *Result) familyText() string {
	if v.FamilyTables > 1 {
		return fmt.Sprintf("all %d comparisons of the %d tables of this file (one family)", v.Family, v.FamilyTables)
	}
	return fmt.Sprintf("all %d comparisons of this table", v.Family)
}

// levelTable writes the table of level l: each mechanism's utilities or its status.
func (v *Result) levelTable(b *strings.Builder, l int) {
	s := v.Spec
	b.WriteString("| mechanism |")
	for _, u := range s.Utilities {
		fmt.Fprintf(b, " %s |", u)
	}
	b.WriteString(" replicates reaching |")
	if len(v.Baseline) > 0 {
		fmt.Fprintf(b, " only %s meets it |", s.Baseline)
	}
	b.WriteString("\n|---|")
	for range s.Utilities {
		b.WriteString("---:|")
	}
	b.WriteString("---:|")
	if len(v.Baseline) > 0 {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	byMech := map[string][]Cell{}
	var order []string
	for _, c := range v.Cells {
		if c.Level != l {
			continue
		}
		if byMech[c.Mechanism] == nil {
			order = append(order, c.Mechanism)
		}
		byMech[c.Mechanism] = append(byMech[c.Mechanism], c)
	}
	for _, m := range order {
		cells := byMech[m]
		fmt.Fprintf(b, "| %s |", m)
		c := cells[0]
		if c.Status == StatusReached {
			for _, c := range cells {
				fmt.Fprintf(b, " %.3f [%.3f, %.3f] |", c.Value, c.Low, c.High)
			}
			fmt.Fprintf(b, " %.1f %% |", 100*c.Reached)
		} else {
			fmt.Fprintf(b, " %s |", v.statusText(c))
			for range cells[1:] {
				b.WriteString(" |")
			}
			b.WriteString(" – |")
		}
		if len(v.Baseline) > 0 {
			fmt.Fprintf(b, " %.1f %% |", 100*c.OnlyBaseline)
		}
		b.WriteString("\n")
	}
}

// statusText says why a cell has no value.
func (v *Result) statusText(c Cell) string {
	s := v.Spec
	switch c.Status {
	case StatusNeverReached:
		switch {
		case s.Axis != "" && math.IsInf(c.MinAttack, 1):
			return "never reaches (ε = ∞ at every point: no finite guarantee)"
		case s.RangeEnds[c.Mechanism] && s.Axis != "":
			return fmt.Sprintf("does not reach within its ε range (lowest %.4g)", c.MinAttack)
		case s.RangeEnds[c.Mechanism]:
			return fmt.Sprintf("does not reach within its ε range (lowest %.3f)", c.MinAttack)
		case s.Axis != "":
			return fmt.Sprintf("never reaches (lowest %.4g)", c.MinAttack)
		}
		return fmt.Sprintf("never reaches on its grid (lowest %.3f)", c.MinAttack)
	case StatusAboveGrid:
		return fmt.Sprintf("not reached: above its grid (highest %.4g)", c.MaxAxis)
	case StatusBelowAtStart:
		return fmt.Sprintf("not reached: %.3f already at its largest ε (the level lies beyond its grid)", c.MaxAxis)
	}
	return c.Status
}

func orDash(s string) string {
	if s == "" {
		return "the unprivatised text"
	}
	return s
}

// CSV renders every pair: level, utility, A (keeps more), B, difference A − B, interval, the
// share of replicates both reach, p, Holm p, verdict.
func (v *Result) CSV(set string) [][]string {
	rows := [][]string{{"set", "axis", "level", "level_name", "utility", "a", "b", "diff", "low", "high", "reached", "p", "p_holm", "verdict"}}
	f := func(x float64) string { return fmt.Sprintf("%g", x) }
	for _, p := range v.Pairs {
		rows = append(rows, []string{set, v.Spec.axisName(), f(v.Spec.Levels[p.Level]), v.Spec.LevelNames[p.Level], p.Utility, p.A, p.B,
			f(p.Diff), f(p.Low), f(p.High), f(p.Reached), f(p.P), f(p.Adj), p.Verdict})
	}
	return rows
}

// HalfCheck is the replication of one significant verdict on two disjoint halves of the
// authors: the same pair, utility and level compared on each half alone (nil where a half
// has no such comparison, e.g. a curve that does not reach the level there).
type HalfCheck struct {
	Full   Pair
	Halves [2]*Pair
}

// Diff is half h's difference oriented as the full verdict reads (its more − its less): > 0
// is the same direction. NaN where the half has no such comparison.
func (h HalfCheck) Diff(half int) float64 {
	p := h.Halves[half]
	switch {
	case p == nil:
		return math.NaN()
	case p.A == h.Full.A:
		return p.Diff
	}
	return -p.Diff
}

// Holds reports whether the half's comparison has the full verdict's direction and is
// significant at the spec's α after the half's own Holm correction.
func (h HalfCheck) Holds(half int, alpha float64) bool {
	p := h.Halves[half]
	return p != nil && p.Adj < alpha && h.Diff(half) > 0
}

// CheckHalves records, for every significant verdict of v, the same comparison in the results
// on two disjoint halves of the authors (rendered by Markdown).
func (v *Result) CheckHalves(h1, h2 *Result) {
	find := func(r *Result, p Pair) *Pair {
		for i := range r.Pairs {
			q := &r.Pairs[i]
			if q.Utility == p.Utility && q.Level == p.Level && (q.A == p.A && q.B == p.B || q.A == p.B && q.B == p.A) {
				return q
			}
		}
		return nil
	}
	v.halvesChecked = true
	v.Halves = nil
	for _, p := range v.Pairs {
		if p.Adj < v.Spec.Alpha {
			v.Halves = append(v.Halves, HalfCheck{Full: p, Halves: [2]*Pair{find(h1, p), find(h2, p)}})
		}
	}
}

// halvesMarkdown renders the replication on halves.
func (v *Result) halvesMarkdown(b *strings.Builder) {
	b.WriteString("### Replication on two disjoint halves of the authors\n\n")
	if len(v.Halves) == 0 {
		b.WriteString("No significant verdict of this table to replicate.\n\n")
		return
	}
	b.WriteString("Each half's difference is oriented as the verdict reads (more − less: positive is the same direction); its Holm p is corrected over that half's whole family.\n\n")
	held := 0
	for _, h := range v.Halves {
		fmt.Fprintf(b, "- %s:", h.Full.Verdict)
		for k, p := range h.Halves {
			if p == nil {
				fmt.Fprintf(b, " half %d not compared;", k+1)
				continue
			}
			fmt.Fprintf(b, " half %d difference %+.3f, Holm p = %.2g;", k+1, h.Diff(k), p.Adj)
		}
		both := h.Holds(0, v.Spec.Alpha) && h.Holds(1, v.Spec.Alpha)
		if both {
			held++
		}
		fmt.Fprintf(b, " holds in both: %v\n", both)
	}
	fmt.Fprintf(b, "\n%d of %d significant verdicts hold (same direction, significant) in both halves.\n\n", held, len(v.Halves))
}
