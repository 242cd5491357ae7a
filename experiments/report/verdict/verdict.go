// Package verdict compares mechanisms at matched privacy: each mechanism's utility where its attack
// accuracy falls to a level, interpolated only between points of its own ε grid, with paired
// cluster-bootstrap intervals over authors, and every pair compared by the stepdown maximum of
// the studentised differences over a family of comparisons on the same replicates, with
// simultaneous intervals, the mechanisms that may keep the most, and the replication on halves
// (the statistics of verdict.md and verdict.csv).
package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"

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
	// Replicates of the cluster bootstrap, Confidence of the utilities' intervals and Alpha
	// the family-wise error rate of the verdicts (the stepdown maximum over every comparison of
	// the family: AdjustFamilies).
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
	// Diff is the difference at the point estimate and SE its bootstrap standard error (over
	// the replicates in which both curves reach the level).
	Diff, SE float64
	// Low and High are its simultaneous interval over the family (Diff ∓ the family's
	// critical value × SE: AdjustFamilies), which excludes 0 exactly when Adj < Alpha; P is its
	// unadjusted p-value and Adj its p-value adjusted by the stepdown maximum over the family,
	// from the same replicates. NaN for a pair not compared.
	Low, High, P, Adj float64
	// Reached is the share of replicates in which both curves reach the level; Compared says
	// that it is at least 1 − Alpha/2, so that the pair enters its family (otherwise it is
	// listed as not compared: a difference that does not exist in more than Alpha/2 of the
	// replicates is not tested).
	Reached  float64
	Compared bool
	// Family names the family the pair is adjusted in (FamilyAll, FamilyPrimary or
	// FamilyExploratory) and FamilySize the number of comparisons in it.
	Family     string
	FamilySize int
	// Verdict is "A keeps more U than B at attack ≤ level" where Adj < Alpha, else "no
	// significant difference" (or "not compared: …").
	Verdict string
	// a and b index the two cells' replicates (Result.reps.vals) of A and B.
	a, b int
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
	// Families describes the families this table's pairs were adjusted in (AdjustFamilies),
	// and FamilyTables the number of tables they come from.
	Families     []FamilyInfo
	FamilyTables int
	// Halves holds the replication of each significant verdict on two disjoint halves of the
	// authors, when ReplicateOnHalves was called.
	Halves        []HalfCheck
	halvesChecked bool
	// replication is the size of the replication's family (every verdict replicated).
	replication int
	reps        *replicates
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
// nClusters) drawn from rng: see MatchedWeights. The result is adjusted as a family of its own
// (AdjustFamilies widens the family to several results: they must then share their weights).
func Matched(spec Spec, cluster []int, nClusters int, points []CurvePoint, rng *rand.Rand) (*Result, error) {
	res, err := MatchedWeights(spec, cluster, nClusters, points, ClusterWeights(rng, nClusters, spec.Replicates))
	if err != nil {
		return nil, err
	}
	AdjustFamilies([]*Result{res}, nil)
	return res, nil
}

// MatchedWeights interpolates every mechanism's utilities at the attack levels and compares
// every pair that both reach a level, under the given cluster-bootstrap weights (weights[b][c]
// of cluster c in replicate b: ClusterWeights): each replicate recomputes every point's means
// with the same weights, so the curves and their differences are resampled together (paired).
// Every result of one family should be computed with the same weights (one draw per set of
// authors), so that the family's maximum statistic sees their dependence. The pairs are not
// yet adjusted: AdjustFamilies sets their p-values, intervals and verdicts.
func MatchedWeights(spec Spec, cluster []int, nClusters int, points []CurvePoint, weights [][]float64) (*Result, error) {
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
	for b, w := range weights {
		if len(w) != nClusters {
			return nil, fmt.Errorf("verdict: replicate %d has %d cluster weights, want %d", b, len(w), nClusters)
		}
	}
	res := &Result{Spec: spec, Clusters: nClusters, Items: len(cluster)}
	curves, base := buildCurves(spec.Baseline, points, res)
	sums := newSums(spec, curves, base, cluster, nClusters)
	ones := make([]float64, nClusters)
	for i := range ones {
		ones[i] = 1
	}
	est := sums.estimate(spec, ones)
	reps := sums.replicate(spec, weights)
	res.reps = reps
	L, U := len(spec.Levels), len(spec.Utilities)
	if base != nil {
		for _, level := range spec.Levels {
			meets := 0
			for _, x := range reps.base {
				if x <= level {
					meets++
				}
			}
			res.Baseline = append(res.Baseline, BaselineLevel{Attack: est.base, Meets: float64(meets) / float64(reps.B)})
		}
	}
	for c, cv := range curves {
		lo, hi := axisRange(est.pos[c])
		for l, level := range spec.Levels {
			st := est.status[c*L+l]
			only := math.NaN()
			if base != nil {
				n := 0
				for b, x := range reps.base {
					if x <= level && !reps.reached[c*L+l][b] {
						n++
					}
				}
				only = float64(n) / float64(reps.B)
			}
			for u, name := range spec.Utilities {
				cell := Cell{Mechanism: cv.name, Utility: name, Level: l, Status: st, MinAttack: lo, MaxAxis: hi,
					Value: est.value[(c*L+l)*U+u], Low: math.NaN(), High: math.NaN(), Reached: math.NaN(), OnlyBaseline: only}
				if st == StatusBelowAtStart {
					cell.MaxAxis = est.pos[c][0]
				}
				if st == StatusReached {
					xs := reps.vals[(c*L+l)*U+u]
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
					if est.status[a*L+l] != StatusReached || est.status[b*L+l] != StatusReached {
						continue // a level not reached by both at the estimate is no comparison
					}
					x, y := a, b
					if est.value[(b*L+l)*U+u] > est.value[(a*L+l)*U+u] {
						x, y = b, a
					}
					p := Pair{A: curves[x].name, B: curves[y].name, Utility: name, Level: l,
						Diff: est.value[(x*L+l)*U+u] - est.value[(y*L+l)*U+u], Low: math.NaN(), High: math.NaN(), P: math.NaN(), Adj: math.NaN(),
						a: (x*L+l)*U + u, b: (y*L+l)*U + u}
					p.SE, p.Reached = res.diffSE(p)
					p.Compared = p.Reached >= 1-spec.Alpha/2
					res.Pairs = append(res.Pairs, p)
				}
			}
		}
	}
	return res, nil
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

// estimate is the point estimate (every cluster weight 1): each curve's positions pos[c], the
// status of every curve and level (status[c·L + l]), the utilities there (value[(c·L + l)·U +
// u], NaN where not reached) and the baseline's attack (NaN without one).
type estimate struct {
	pos    [][]float64
	status []string
	value  []float64
	base   float64
}

// replicates are the bootstrap replicates of every curve's utilities at every level:
// vals[(c·L + l)·U + u][b] (NaN where curve c does not reach level l in replicate b),
// reached[c·L + l][b], and the baseline's attack base[b] (nil without one).
type replicates struct {
	B       int
	vals    [][]float64
	reached [][]bool
	base    []float64
}

// estimate evaluates the curves at the weights w (all 1 for the point estimate).
func (s *sums) estimate(spec Spec, w []float64) estimate {
	L, U := len(spec.Levels), len(spec.Utilities)
	e := estimate{pos: make([][]float64, len(s.curves)), status: make([]string, len(s.curves)*L), value: make([]float64, len(s.curves)*L*U)}
	for c, cv := range s.curves {
		e.pos[c] = make([]float64, len(cv.points))
	}
	e.base = s.evaluate(spec, w, e.pos, e.status, e.value)
	return e
}

// replicate evaluates the curves under every replicate's weights, in parallel over replicates
// (each replicate writes only its own column; the buffers are allocated once per worker).
func (s *sums) replicate(spec Spec, weights [][]float64) *replicates {
	L, U, B := len(spec.Levels), len(spec.Utilities), len(weights)
	r := &replicates{B: B, vals: make([][]float64, len(s.curves)*L*U), reached: make([][]bool, len(s.curves)*L)}
	for i := range r.vals {
		r.vals[i] = make([]float64, B)
	}
	for i := range r.reached {
		r.reached[i] = make([]bool, B)
	}
	if s.base != nil {
		r.base = make([]float64, B)
	}
	parallelChunks(B, 256, func(from, to int) {
		pos := make([][]float64, len(s.curves))
		for c, cv := range s.curves {
			pos[c] = make([]float64, len(cv.points))
		}
		status := make([]string, len(s.curves)*L)
		value := make([]float64, len(s.curves)*L*U)
		for b := from; b < to; b++ {
			base := s.evaluate(spec, weights[b], pos, status, value)
			if r.base != nil {
				r.base[b] = base
			}
			for i, x := range value {
				r.vals[i][b] = x
			}
			for i, st := range status {
				r.reached[i][b] = st == StatusReached
			}
		}
	})
	return r
}

// parallelChunks calls f on consecutive chunks [from, to) covering [0, n), of at least
// minChunk items, on up to GOMAXPROCS goroutines, and returns when all are done. f must write only its own chunk's
// results, so the outcome does not depend on the number of goroutines.
func parallelChunks(n, minChunk int, f func(from, to int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/minChunk))
	if workers <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for k := range workers {
		from, to := k*n/workers, (k+1)*n/workers
		wg.Go(func() { f(from, to) })
	}
	wg.Wait()
}

// evaluate interpolates every curve's utilities at every level under the cluster weights w,
// writing each curve's positions into pos[c], the statuses into status[c·L + l] and the values
// into value[(c·L + l)·U + u]; it returns the baseline's attack (NaN without one).
func (s *sums) evaluate(spec Spec, w []float64, pos [][]float64, status []string, value []float64) float64 {
	L, U := len(spec.Levels), len(spec.Utilities)
	base := math.NaN()
	if s.base != nil {
		base = s.base.mean(w)
	}
	for c, cv := range s.curves {
		for k, p := range cv.points {
			if spec.Axis != "" {
				pos[c][k] = p.X
			} else {
				pos[c][k] = s.att[c][k].mean(w)
			}
		}
		for l, level := range spec.Levels {
			k, t, st := crossing(pos[c], level)
			if spec.Axis != "" && st == StatusBelowAtStart {
				st = StatusAboveGrid
			}
			status[c*L+l] = st
			for u := range spec.Utilities {
				v := math.NaN()
				if st == StatusReached {
					hi := s.util[c][u][k].mean(w)
					v = hi
					if t > 0 {
						v = hi + t*(s.util[c][u][k+1].mean(w)-hi)
					}
				}
				value[(c*L+l)*U+u] = v
			}
		}
	}
	return base
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

// Markdown renders the verdict: the utilities at each level with intervals, the mechanisms
// that may keep the most and the least, the significant verdicts, the pairs not compared, and
// what the table could have detected.
func (v *Result) Markdown(set string) string {
	var b strings.Builder
	s := v.Spec
	method := fmt.Sprintf("%d items of %d authors; %.0f %% intervals of each utility from a cluster bootstrap over authors (%d replicates, Hesterberg's expanded percentile interval). "+
		"Pairs: the difference (more − less) with its simultaneous interval over its family (the difference ∓ the family's critical value × its bootstrap standard error), "+
		"p-values adjusted by the stepdown maximum of the studentised differences over the family on the same replicates (Romano and Wolf 2005), so that an interval excludes 0 exactly when the adjusted p is below α = %g; %s.",
		v.Items, v.Clusters, 100*s.Confidence, s.Replicates, s.Alpha, v.familyText())
	if s.Axis != "" {
		fmt.Fprintf(&b, "## Verdicts at matched %s, set %s\n\n", s.Axis, set)
		fmt.Fprintf(&b, "Utility each mechanism of this unit keeps at each level of %s (a position fixed per grid point, the same for every item): linear interpolation between the two ε of the mechanism's own grid that bracket the level; a level outside the grid is not reached, nothing is extrapolated. %s\n\n",
			s.Axis, method)
	} else {
		fmt.Fprintf(&b, "## Verdicts at matched privacy, set %s\n\n", set)
		fmt.Fprintf(&b, "Utility kept where %s's %s falls to each level: linear interpolation between the two ε of the mechanism's own grid that bracket the level (no segment towards %s, no extrapolation; a replicate in which the grid does not bracket the level has no value). %s\n\n",
			s.Attack, s.measureName(), orDash(s.Baseline), method)
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
		var best []string
		for _, u := range s.Utilities {
			if t := v.bestSentence(l, u); t != "" {
				best = append(best, t)
			}
		}
		if len(best) > 0 {
			b.WriteString("\nMay keep the most / the least (no mechanism keeps significantly more / less in the family):\n\n")
			for _, t := range best {
				fmt.Fprintf(&b, "- %s\n", t)
			}
		}
		b.WriteString("\nSignificant:\n\n")
		found, compared := false, 0
		var skipped []string                 // the pairs not compared, by mechanism names in order
		skippedShare := map[string]float64{} // the smallest share over their utilities
		for _, p := range v.Pairs {
			if p.Level != l {
				continue
			}
			if !p.Compared {
				a, c := p.A, p.B
				if c < a {
					a, c = c, a
				}
				key := a + " − " + c
				if x, ok := skippedShare[key]; !ok || p.Reached < x {
					if !ok {
						skipped = append(skipped, key)
					}
					skippedShare[key] = p.Reached
				}
				continue
			}
			compared++
			if p.Adj < s.Alpha {
				fmt.Fprintf(&b, "- %s: difference %.3f [%s, %s], p = %.2g, adjusted p = %.2g (%s family of %d); both reach the level in %.1f %% of replicates\n",
					p.Verdict, p.Diff, num(p.Low), num(p.High), p.P, p.Adj, p.Family, p.FamilySize, 100*p.Reached)
				found = true
			}
		}
		switch {
		case compared == 0 && len(skipped) == 0:
			b.WriteString("- nothing to compare: fewer than two mechanisms reach this level\n")
		case compared == 0:
			b.WriteString("- nothing compared at this level\n")
		case !found:
			fmt.Fprintf(&b, "- no significant difference in any of the %d comparisons at this level\n", compared)
		}
		if nd := v.notDeclared(l); len(nd) > 0 {
			fmt.Fprintf(&b, "\nNot declared although the unadjusted %.0f %% interval excludes 0 (bootstrap p < α = %g, adjusted p ≥ α), most standard errors from 0 first: the share of replicates whose centred difference reaches the observed one is the bootstrap p — a heavy tail (replicates in which a curve crosses the level between other points of its grid) can make it far larger than the standard error suggests — and the adjusted p is the share in which some comparison of the family is at least as extreme:\n\n", 100*(1-s.Alpha), s.Alpha)
			for _, t := range nd {
				fmt.Fprintf(&b, "- %s\n", t)
			}
		}
		if len(skipped) > 0 {
			for i, k := range skipped {
				skipped[i] = fmt.Sprintf("%s (%.1f %%)", k, 100*skippedShare[k])
			}
			fmt.Fprintf(&b, "\nPairs not compared (both curves reach the level in fewer than 1 − α/2 = %.1f %% of replicates, shown in parentheses): %s.\n", 100*(1-s.Alpha/2), strings.Join(skipped, "; "))
		}
		b.WriteString("\n")
	}
	if w := v.WidthsText(); w != "" {
		fmt.Fprintf(&b, "%s\n\n", w)
	}
	if d := v.detectableText(); d != "" {
		fmt.Fprintf(&b, "%s\n\n", d)
	}
	if len(v.Excluded) > 0 {
		fmt.Fprintf(&b, "Not compared (no ε grid): %s.\n\n", strings.Join(v.Excluded, ", "))
	}
	if v.halvesChecked {
		v.halvesMarkdown(&b)
	}
	return b.String()
}

// notDeclared lists the compared pairs of level l whose unadjusted bootstrap p is below α but
// whose adjusted p is not, most standard errors from 0 first: the difference, its distance from
// 0 in bootstrap standard errors, and both p-values (Markdown says why they differ).
func (v *Result) notDeclared(l int) []string {
	type item struct {
		t    float64
		text string
	}
	var items []item
	for _, p := range v.Pairs {
		if p.Level != l || !p.Compared || !(p.P < v.Spec.Alpha) || p.Adj < v.Spec.Alpha {
			continue
		}
		more, less, d := p.A, p.B, p.Diff
		if d < 0 {
			more, less, d = less, more, -d
		}
		t := math.Inf(1)
		if p.SE > 0 {
			t = d / p.SE
		}
		items = append(items, item{t, fmt.Sprintf("%s − %s in %s: %+.3f, %.1f standard errors from 0; bootstrap p = %.2g, adjusted p = %.2g (%s family of %d)",
			more, less, p.Utility, d, t, p.P, p.Adj, p.Family, p.FamilySize)})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].t > items[j].t })
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.text
	}
	return out
}

// detectableText says what a non-conclusion of this table means: per family and utility, the
// smallest difference detected with 80 % power and the authors a difference of 0.05 and 0.10
// would need.
func (v *Result) detectableText() string {
	ds := v.Detectables()
	if len(ds) == 0 {
		return ""
	}
	var parts []string
	for _, d := range ds {
		fam := ""
		if d.Family != FamilyAll {
			fam = d.Family + " family, "
		}
		parts = append(parts, fmt.Sprintf("%s%s: %.3f (median standard error %.3f; authors for 0.05: %d, for 0.10: %d)", fam, d.Utility, d.MDD, d.SE, d.Authors05, d.Authors10))
	}
	return fmt.Sprintf("What a non-conclusion means: the smallest difference this table detects with 80 %% power at the family's α (the first step's critical value plus Φ⁻¹(0.8), times the median bootstrap standard error of its compared pairs; %d authors): %s. A difference not declared here is likely smaller than that, unless it is listed as not declared under its level (a bootstrap distribution with heavier tails than its standard error suggests).",
		v.Clusters, strings.Join(parts, "; "))
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

// familyText names the families of this table's pairs.
func (v *Result) familyText() string {
	var parts []string
	for _, f := range v.Families {
		what := "every comparison"
		switch f.Name {
		case FamilyPrimary:
			what = "the planned comparisons ([verdict] primary)"
		case FamilyExploratory:
			what = "every other comparison (exploratory)"
		}
		where := "of this table"
		if v.FamilyTables > 1 {
			where = fmt.Sprintf("of the %d tables of this file", v.FamilyTables)
		}
		parts = append(parts, fmt.Sprintf("family %q: %s %s, %d compared, first step's critical value %.2f standard errors", f.Name, what, where, f.Size, f.Critical))
	}
	if len(parts) == 0 {
		return "not adjusted"
	}
	return strings.Join(parts, "; ")
}

// MinReplicates is the number of bootstrap replicates a family of m compared pairs needs at α
// for the resolution of the replicates not to decide a verdict, 2m/α: the adjusted p of a pair
// beyond all its own replicates is at most about m/(B + 1) (each pair holds its own smallest p
// in one replicate), so B ≥ 2m/α keeps it at or below α/2.
func MinReplicates(m int, alpha float64) int {
	return int(math.Ceil(2 * float64(m) / alpha))
}

// The replicates chosen when a config does not give them (DefaultReplicates).
const (
	// BaseReplicates is the fewest: a family of m ≤ BaseReplicates·α/2 compared pairs needs no more.
	BaseReplicates = 20_000
	// MaxDefaultReplicates is the most, the largest count a config may give: the stepdown keeps
	// 4 bytes per pair and replicate and each curve's utilities 8 (a family of 2,500 pairs at
	// α = 0.05 needs it: 1 GB of ranks).
	MaxDefaultReplicates = 100_000
)

// DefaultReplicates is the bootstrap replicates for a family of m compared pairs at α when the
// config does not give them: max(BaseReplicates, MinReplicates(m, α)) rounded up to a
// thousand, at most MaxDefaultReplicates (verdict.md's summary says when the family needs
// more).
func DefaultReplicates(m int, alpha float64) int {
	b := max(BaseReplicates, (MinReplicates(m, alpha)+999)/1000*1000)
	return min(b, MaxDefaultReplicates)
}

// Summary is verdict.md's first lines: what concluded in each family of the results (adjusted
// together by AdjustFamilies), and per table, level and utility which mechanisms may keep the
// most and the least; sets names each result's set.
func Summary(results []*Result, sets []string) string {
	if len(results) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Summary\n\n")
	for _, f := range results[0].Families {
		fmt.Fprintf(&b, "- Family %q (α = %g, %d replicates): %d of %d comparisons significant", f.Name, f.Alpha, f.Replicates, f.Significant, f.Size)
		if f.NotCompared > 0 {
			fmt.Fprintf(&b, "; %d pairs not compared (a curve reaches the level in fewer than 1 − α/2 of replicates)", f.NotCompared)
		}
		b.WriteString(".")
		if need := MinReplicates(f.Size, f.Alpha); f.Replicates < need {
			fmt.Fprintf(&b, " With %d compared pairs the replicates' resolution can decide: a pair beyond all its replicates has an adjusted p up to %d/%d", f.Size, f.Size, f.Replicates+1)
			if need > MaxDefaultReplicates {
				fmt.Fprintf(&b, "; the family needs %d replicates (2m/α), more than the most allowed (%d): plan fewer comparisons ([verdict] primary) or a larger α.", need, MaxDefaultReplicates)
			} else {
				fmt.Fprintf(&b, "; raise `replicates` to at least %d (2m/α), or leave it out to have it chosen.", need)
			}
		}
		b.WriteString("\n")
	}
	if results[0].halvesChecked {
		held, n := 0, 0
		for _, v := range results {
			for _, h := range v.Halves {
				n++
				if h.Holds(0, v.Spec.Alpha) && h.Holds(1, v.Spec.Alpha) {
					held++
				}
			}
		}
		fmt.Fprintf(&b, "- Replication on two halves of the authors: %d of %d significant verdicts hold in both.\n", held, n)
	}
	b.WriteString("\n")
	for i, v := range results {
		for l := range v.Spec.Levels {
			var parts []string
			for _, u := range v.Spec.Utilities {
				if t := v.bestSentence(l, u); t != "" {
					parts = append(parts, t)
				}
			}
			if len(parts) > 0 {
				fmt.Fprintf(&b, "- Set %s, at %s (%s): %s.\n", sets[i], v.Spec.levelText(l), v.Spec.LevelNames[l], strings.Join(parts, "; "))
			}
		}
	}
	b.WriteString("\n")
	return b.String()
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

// CSV renders every pair: level, utility, A (keeps more), B, difference A − B, its bootstrap
// standard error, its simultaneous interval, the share of replicates both reach, whether it
// was compared, its family, p, adjusted p, verdict.
func (v *Result) CSV(set string) [][]string {
	rows := [][]string{{"set", "axis", "level", "level_name", "utility", "a", "b", "diff", "se", "low", "high", "reached", "compared", "family", "p", "p_adjusted", "verdict"}}
	f := func(x float64) string { return fmt.Sprintf("%g", x) }
	for _, p := range v.Pairs {
		rows = append(rows, []string{set, v.Spec.axisName(), f(v.Spec.Levels[p.Level]), v.Spec.LevelNames[p.Level], p.Utility, p.A, p.B,
			f(p.Diff), f(p.SE), f(p.Low), f(p.High), f(p.Reached), fmt.Sprint(p.Compared), p.Family, f(p.P), f(p.Adj), p.Verdict})
	}
	return rows
}
