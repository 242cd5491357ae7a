// Package verdict compares mechanisms at matched privacy: each mechanism's utility where its attack
// accuracy falls to a level, with paired cluster-bootstrap intervals and Holm-adjusted tests over
// authors (the statistics of verdict.md and verdict.csv).
package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"dptext/report"
)

// Spec says which comparisons a verdict table makes: the utility each mechanism keeps
// when its ε is lowered until the attacker's accuracy falls to each level.
type Spec struct {
	// Attack is the scorer whose accuracy sets the privacy level.
	Attack string
	// Levels are the attack accuracies to match, and LevelNames how the table names them
	// (e.g. "chance + 0.05").
	Levels     []float64
	LevelNames []string
	// Utilities are the scorers whose item scores are compared (a classifier's per-item
	// correctness, or a utility measure's per-item value).
	Utilities []string
	// Baseline is the mechanism that starts every curve at "no privacy" (ε = ∞), normally
	// none; empty: the curves start at each mechanism's largest ε.
	Baseline string
	// Replicates of the cluster bootstrap, Confidence of the intervals and Alpha the
	// family-wise error rate of the verdicts (Holm over every pair at every level and utility).
	Replicates int
	Confidence float64
	Alpha      float64
	// Axis, when not empty, names a fixed privacy axis that replaces the attack's accuracy
	// (e.g. "claimed ε per document (pure)"): each point's position is its CurvePoint.X, the
	// same in every bootstrap replicate (only the utilities are resampled), the levels are
	// values of that axis, and a level above the curve's first point is not reached (there is
	// nothing beyond the grid's largest ε to interpolate from). Use it without a Baseline.
	Axis string
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

// Statuses of a Cell.
const (
	// StatusReached: the attack falls to the level between two ε of the grid.
	StatusReached = "reached"
	// StatusNeverReached: the attack stays above the level at every ε of the grid (the
	// smallest ε is not extrapolated beyond).
	StatusNeverReached = "never reaches"
	// StatusBelowAtStart: the curve's first point (the baseline, or the largest ε) is
	// already at or below the level: there is no crossing to interpolate. With a baseline the
	// value is the baseline's utility (no privatising needed to meet the level; a bootstrap
	// replicate in this state contributes that value), without one it is NaN.
	StatusBelowAtStart = "at or below the level at its first point"
	// StatusAboveGrid: on a fixed axis (Spec.Axis), the level lies above the curve's
	// first point (the largest ε of its grid): not reached, nothing is extrapolated.
	StatusAboveGrid = "above its grid (not reached)"
)

// Cell is the utility a mechanism keeps at one attack level: the utility interpolated
// linearly in attack accuracy between the two consecutive points of its curve (ordered by
// falling ε, the baseline first) where the attack first falls to the level or below.
type Cell struct {
	Mechanism, Utility string
	Level              int // index into Spec.Levels
	Status             string
	// MinAttack is the lowest attack accuracy of the curve, or on a fixed axis its lowest
	// position (for StatusNeverReached); MaxAxis the highest position on a fixed axis (for
	// StatusAboveGrid).
	MinAttack, MaxAxis float64
	// Value and its interval; NaN unless reached (or met by the baseline). Reached is the
	// share of bootstrap replicates with a value (the curve reaches the level, or the baseline
	// already meets it); the interval is over those.
	Value, Low, High, Reached float64
}

// Pair compares two mechanisms that both reach a level: Diff = A − B.
type Pair struct {
	A, B, Utility           string
	Level                   int
	Diff, Low, High, P, Adj float64
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
	// Excluded lists mechanisms without an ε grid (other than the baseline).
	Excluded []string
	// Halves holds the replication of each significant verdict on two disjoint halves of the
	// authors, when CheckHalves was called.
	Halves        []HalfCheck
	halvesChecked bool
}

// curve is one mechanism's points in order of falling ε, the baseline first.
type curve struct {
	name   string
	points []*CurvePoint
}

// Matched interpolates every mechanism's utilities at the attack levels and compares every
// pair, with a cluster bootstrap over authors (cluster[i] is the author index of item i, of
// nClusters): each replicate resamples authors once and recomputes every point's means with
// the same weights, so the curves and their differences are resampled together (paired).
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
	curves := buildCurves(spec.Baseline, points, res)
	// est[c][l][u] is the point estimate; reps[b][c][l][u] the replicates.
	weights := ClusterWeights(rng, nClusters, spec.Replicates)
	ones := make([]float64, nClusters)
	for i := range ones {
		ones[i] = 1
	}
	status := make([][]string, len(curves))
	est := evaluate(spec, curves, cluster, ones, status)
	reps := make([][][][]float64, len(weights))
	for b, w := range weights {
		reps[b] = evaluate(spec, curves, cluster, w, nil)
	}
	for c, cv := range curves {
		for l := range spec.Levels {
			for u, name := range spec.Utilities {
				lo, hi := axisRange(spec, cv, cluster, ones)
				cell := Cell{Mechanism: cv.name, Utility: name, Level: l, Status: status[c][l], MinAttack: lo, MaxAxis: hi,
					Value: est[c][l][u], Low: math.NaN(), High: math.NaN(), Reached: math.NaN()}
				if cell.Status == StatusReached || !math.IsNaN(cell.Value) {
					xs := column(reps, c, l, u)
					cell.Low, cell.High = ExpandedPercentileInterval(xs, spec.Confidence, nClusters)
					cell.Reached = shareFinite(xs)
				}
				res.Cells = append(res.Cells, cell)
			}
		}
	}
	for l := range spec.Levels {
		for u, name := range spec.Utilities {
			for a := range curves {
				for b := a + 1; b < len(curves); b++ {
					if status[a][l] != StatusReached || status[b][l] != StatusReached {
						continue // a level met without privatising, or never met, is no comparison
					}
					d := make([]float64, len(reps))
					for r := range reps {
						d[r] = reps[r][a][l][u] - reps[r][b][l][u]
					}
					diff := est[a][l][u] - est[b][l][u]
					lo, hi := ExpandedPercentileInterval(d, spec.Confidence, nClusters)
					res.Pairs = append(res.Pairs, Pair{A: curves[a].name, B: curves[b].name, Utility: name, Level: l,
						Diff: diff, Low: lo, High: hi, P: BootstrapP(diff, d, nClusters)})
				}
			}
		}
	}
	ps := make([]float64, len(res.Pairs))
	for i, p := range res.Pairs {
		ps[i] = p.P
	}
	for i, adj := range Holm(ps) {
		p := &res.Pairs[i]
		p.Adj = adj
		p.Verdict = "no significant difference"
		if adj < spec.Alpha {
			more, less := p.A, p.B
			if p.Diff < 0 {
				more, less = p.B, p.A
			}
			p.Verdict = fmt.Sprintf("%s keeps more %s than %s at %s", more, p.Utility, less, spec.levelText(p.Level))
		}
	}
	return res, nil
}

// buildCurves groups the points by mechanism in order of falling ε, each curve starting at
// the baseline's point; mechanisms without ε other than the baseline go to res.Excluded.
func buildCurves(baseline string, points []CurvePoint, res *Result) []curve {
	var base *CurvePoint
	byMech := map[string][]*CurvePoint{}
	var order []string
	for i := range points {
		p := &points[i]
		if p.Mechanism == baseline {
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
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].Epsilon.Compare(ps[j].Epsilon) < 0 })
		if base != nil {
			ps = append([]*CurvePoint{base}, ps...)
		}
		curves = append(curves, curve{m, ps})
	}
	return curves
}

// evaluate returns, for one set of cluster weights, the interpolated utility of every curve at
// every level [curve][level][utility] (NaN where the level is not reached); status, when not
// nil, receives each curve's status per level.
func evaluate(spec Spec, curves []curve, cluster []int, w []float64, status [][]string) [][][]float64 {
	out := make([][][]float64, len(curves))
	for c, cv := range curves {
		att := positions(spec, cv, cluster, w)
		util := make([][]float64, len(spec.Utilities))
		for u, name := range spec.Utilities {
			util[u] = make([]float64, len(cv.points))
			for k, p := range cv.points {
				util[u][k] = WeightedMean(p.Scores[name], cluster, w)
			}
		}
		out[c] = make([][]float64, len(spec.Levels))
		if status != nil {
			status[c] = make([]string, len(spec.Levels))
		}
		for l, level := range spec.Levels {
			out[c][l] = make([]float64, len(spec.Utilities))
			k, st := crossing(att, level)
			if spec.Axis != "" && st == StatusBelowAtStart {
				// A fixed axis: a level at the grid's largest ε is that point itself; above
				// it the curve does not reach the level.
				st = StatusAboveGrid
				if len(att) > 0 && att[0] == level {
					st, k = StatusReached, 0
				}
			}
			if status != nil {
				status[c][l] = st
			}
			for u := range spec.Utilities {
				out[c][l][u] = math.NaN()
				switch {
				case st == StatusReached && k == 0:
					out[c][l][u] = util[u][0]
				case st == StatusReached:
					t := (att[k-1] - level) / (att[k-1] - att[k])
					out[c][l][u] = util[u][k-1] + t*(util[u][k]-util[u][k-1])
				case st == StatusBelowAtStart && spec.Baseline != "":
					// The unprotected text already meets the level: the utility at it is the
					// baseline's (the mechanism's limit as ε grows). Without a baseline the
					// curve's first point is only some ε, and nothing is claimed.
					out[c][l][u] = util[u][0]
				}
			}
		}
	}
	return out
}

// crossing returns the first k ≥ 1 with att[k] ≤ level < att[k−1], and the status.
func crossing(att []float64, level float64) (int, string) {
	if len(att) == 0 || att[0] <= level {
		return 0, StatusBelowAtStart
	}
	for k := 1; k < len(att); k++ {
		if att[k] <= level {
			return k, StatusReached
		}
	}
	return 0, StatusNeverReached
}

// positions are the curve's points on the privacy axis: the attack's accuracy under the
// cluster weights w, or each point's fixed X on spec.Axis.
func positions(spec Spec, cv curve, cluster []int, w []float64) []float64 {
	x := make([]float64, len(cv.points))
	for k, p := range cv.points {
		if spec.Axis != "" {
			x[k] = p.X
		} else {
			x[k] = WeightedMean(p.Scores[spec.Attack], cluster, w)
		}
	}
	return x
}

// axisRange is the lowest and highest position of a curve on the privacy axis.
func axisRange(spec Spec, cv curve, cluster []int, w []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range positions(spec, cv, cluster, w) {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// axisName names the privacy axis: the spec's Axis, or the attack.
func (s Spec) axisName() string {
	if s.Axis != "" {
		return s.Axis
	}
	return s.Attack
}

// levelText states level l as a verdict reads it: "koppel11 ≤ 0.1", or "claimed ε … = 5".
func (s Spec) levelText(l int) string {
	if s.Axis != "" {
		return fmt.Sprintf("%s = %.4g", s.Axis, s.Levels[l])
	}
	return fmt.Sprintf("%s ≤ %.3g", s.Attack, s.Levels[l])
}

func column(reps [][][][]float64, c, l, u int) []float64 {
	xs := make([]float64, len(reps))
	for b := range reps {
		xs[b] = reps[b][c][l][u]
	}
	return xs
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

// Markdown renders the verdict: the utilities at each level with intervals, then the
// significant verdicts and the pairs compared.
func (v *Result) Markdown(set string) string {
	var b strings.Builder
	s := v.Spec
	if s.Axis != "" {
		fmt.Fprintf(&b, "## Verdicts at matched %s, set %s\n\n", s.Axis, set)
		fmt.Fprintf(&b, "Utility each mechanism of this unit keeps at each level of %s (a position fixed per grid point, the same for every item: linear interpolation between the two ε of a mechanism's grid that bracket the level; a level outside the grid is not reached, nothing is extrapolated). %d items of %d authors; %.0f %% intervals from a cluster bootstrap over authors (%d replicates, expanded percentile) of the utilities; pairs: bootstrap-t p-values, Holm-corrected over all %d comparisons of this table, α = %g.\n\n",
			s.Axis, v.Items, v.Clusters, 100*s.Confidence, s.Replicates, len(v.Pairs), s.Alpha)
	} else {
		fmt.Fprintf(&b, "## Verdicts at matched privacy, set %s\n\n", set)
		fmt.Fprintf(&b, "Utility kept where %s's accuracy falls to each level (linear interpolation between the two ε of a mechanism's grid that bracket the level, the curve starting at %s; no extrapolation). %d items of %d authors; %.0f %% intervals from a cluster bootstrap over authors (%d replicates, expanded percentile); pairs: bootstrap-t p-values, Holm-corrected over all %d comparisons, α = %g.\n\n",
			s.Attack, orDash(s.Baseline), v.Items, v.Clusters, 100*s.Confidence, s.Replicates, len(v.Pairs), s.Alpha)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "%s\n\n", n)
	}
	for l := range s.Levels {
		fmt.Fprintf(&b, "### %s (%s)\n\n", s.levelText(l), s.LevelNames[l])
		b.WriteString("| mechanism |")
		for _, u := range s.Utilities {
			fmt.Fprintf(&b, " %s |", u)
		}
		b.WriteString("\n|---|")
		for range s.Utilities {
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
			fmt.Fprintf(&b, "| %s |", m)
			for _, c := range byMech[m] {
				switch c.Status {
				case StatusReached:
					fmt.Fprintf(&b, " %.3f [%.3f, %.3f]", c.Value, c.Low, c.High)
					if c.Reached < 1 {
						fmt.Fprintf(&b, " (reached in %.1f %% of replicates)", 100*c.Reached)
					}
					b.WriteString(" |")
				case StatusNeverReached:
					switch {
					case s.Axis != "" && math.IsInf(c.MinAttack, 1):
						b.WriteString(" never reaches (ε = ∞ at every point: no finite guarantee) |")
					case s.Axis != "":
						fmt.Fprintf(&b, " never reaches (lowest %.4g) |", c.MinAttack)
					default:
						fmt.Fprintf(&b, " never reaches (lowest %.3f) |", c.MinAttack)
					}
				case StatusAboveGrid:
					fmt.Fprintf(&b, " not reached: above its grid (highest %.4g) |", c.MaxAxis)
				default:
					if math.IsNaN(c.Value) {
						fmt.Fprintf(&b, " %s |", c.Status)
					} else {
						fmt.Fprintf(&b, " %.3f, the baseline's: %s |", c.Value, c.Status)
					}
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\nSignificant:\n\n")
		found, compared := false, 0
		for _, p := range v.Pairs {
			if p.Level == l {
				compared++
			}
			if p.Level == l && p.Adj < s.Alpha {
				fmt.Fprintf(&b, "- %s: difference %.3f [%.3f, %.3f], Holm p = %.2g\n", p.Verdict, signed(p), lowHigh(p)[0], lowHigh(p)[1], p.Adj)
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
	if len(v.Excluded) > 0 {
		fmt.Fprintf(&b, "Not compared (no ε grid): %s.\n\n", strings.Join(v.Excluded, ", "))
	}
	if v.halvesChecked {
		v.halvesMarkdown(&b)
	}
	return b.String()
}

// signed is the difference oriented as the verdict reads (more − less).
func signed(p Pair) float64 {
	if p.Diff < 0 {
		return -p.Diff
	}
	return p.Diff
}

// lowHigh is the interval oriented as the verdict reads.
func lowHigh(p Pair) [2]float64 {
	if p.Diff < 0 {
		return [2]float64{-p.High, -p.Low}
	}
	return [2]float64{p.Low, p.High}
}

func orDash(s string) string {
	if s == "" {
		return "each mechanism's largest ε"
	}
	return s
}

// CSV renders every pair: level, utility, A, B, difference, interval, p, Holm p, verdict.
func (v *Result) CSV(set string) [][]string {
	rows := [][]string{{"set", "axis", "level", "level_name", "utility", "a", "b", "diff", "low", "high", "p", "p_holm", "verdict"}}
	f := func(x float64) string { return fmt.Sprintf("%g", x) }
	for _, p := range v.Pairs {
		rows = append(rows, []string{set, v.Spec.axisName(), f(v.Spec.Levels[p.Level]), v.Spec.LevelNames[p.Level], p.Utility, p.A, p.B,
			f(p.Diff), f(p.Low), f(p.High), f(p.P), f(p.Adj), p.Verdict})
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

// Holds reports whether the half's comparison has the full verdict's direction and is
// significant at the spec's α after the half's own Holm correction.
func (h HalfCheck) Holds(half int, alpha float64) bool {
	p := h.Halves[half]
	return p != nil && p.Adj < alpha && (p.Diff > 0) == (h.Full.Diff > 0)
}

// CheckHalves records, for every significant verdict of v, the same comparison in the results
// on two disjoint halves of the authors (rendered by Markdown).
func (v *Result) CheckHalves(h1, h2 *Result) {
	find := func(r *Result, p Pair) *Pair {
		for i := range r.Pairs {
			q := &r.Pairs[i]
			if q.A == p.A && q.B == p.B && q.Utility == p.Utility && q.Level == p.Level {
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
		b.WriteString("No significant verdict on all authors to replicate.\n\n")
		return
	}
	held := 0
	for _, h := range v.Halves {
		fmt.Fprintf(b, "- %s:", h.Full.Verdict)
		for k, p := range h.Halves {
			if p == nil {
				fmt.Fprintf(b, " half %d not compared;", k+1)
				continue
			}
			fmt.Fprintf(b, " half %d difference %+.3f, Holm p = %.2g;", k+1, p.Diff, p.Adj)
		}
		both := h.Holds(0, v.Spec.Alpha) && h.Holds(1, v.Spec.Alpha)
		if both {
			held++
		}
		fmt.Fprintf(b, " holds in both: %v\n", both)
	}
	fmt.Fprintf(b, "\n%d of %d significant verdicts hold (same direction, significant) in both halves.\n\n", held, len(v.Halves))
}
