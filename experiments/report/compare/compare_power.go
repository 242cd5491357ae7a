package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"dptext/experiments/report"
	"dptext/internal/stats"

	"gonum.org/v1/gonum/stat/distuv"
)

// MetricPower is the smallest change compare flags in the cells of one metric at the
// baseline's size, when that cell alone moves (its p-value must then be at most α/m, m the
// cells tested: Holm's first step; when several cells move, later steps flag smaller changes).
// A change of exactly that size is flagged about half the time (the run's own noise moves its
// estimate either way); one about twice as large almost always.
type MetricPower struct {
	// Rows is "privacy", "mechanism" or "split" for those rows, "scorer" for a scorer's.
	Rows, Metric, Method string
	// Cells is the number of tested cells of the metric; Smallest, Median and Largest are the
	// change flagged over them, in Unit.
	Cells                     int
	Smallest, Median, Largest float64
	Unit                      string
}

// Power returns, per metric and test of baseline compared with a run of its size and spread,
// the smallest change compare flags (see MetricPower), and the number of cells tested.
func Power(baseline []report.Row, items []Item, opts Options) ([]MetricPower, int, error) {
	v, err := RunsWithItems(baseline, baseline, items, items, opts)
	if err != nil {
		return nil, 0, err
	}
	sum, err := report.Aggregate(baseline, nil, 0.95)
	if err != nil {
		return nil, 0, err
	}
	m := len(v.Tested)
	level := opts.Alpha / float64(m)
	type group struct{ rows, metric, method, unit string }
	found := map[group][]float64{}
	var order []group
	for _, c := range v.Tested {
		rows := "scorer"
		if c.Key.Scorer == "privacy" || c.Key.Scorer == "mechanism" || c.Key.Scorer == report.SplitScorer {
			rows = c.Key.Scorer
		}
		d, _, unit := cellThreshold(sum, itemIndex(items)[c.Key.String()], c, level, opts)
		g := group{rows, c.Key.Metric, c.Method, unit}
		if _, ok := found[g]; !ok {
			order = append(order, g)
		}
		found[g] = append(found[g], d)
	}
	var out []MetricPower
	for _, g := range order {
		ds := found[g]
		out = append(out, MetricPower{Rows: g.rows, Metric: g.metric, Method: g.method, Unit: g.unit, Cells: len(ds),
			Smallest: slices.Min(ds), Median: stats.Median(ds), Largest: slices.Max(ds)})
	}
	slices.SortStableFunc(out, func(a, b MetricPower) int {
		return cmp.Or(cmp.Compare(a.Rows, b.Rows), cmp.Compare(a.Metric, b.Metric), cmp.Compare(a.Method, b.Method))
	})
	return out, m, nil
}

// cellThreshold returns the smallest change of tested cell c that its test flags at level,
// for a baseline summarised by sum: in the unit Power prints (d, with its unit) and in the
// unit of the cell's means, Change.Baseline and Change.Run (mean: the mean correct count per
// repeat for Fisher, the mean count of words per repeat for the paired test).
func cellThreshold(sum *report.Summary, items map[[2]int]float64, c Change, level float64, opts Options) (d, mean float64, unit string) {
	cell, _ := sum.Cell(c.Key)
	switch c.Method {
	case MethodPairedItems:
		n := len(items)
		k := float64(signThreshold(n, level))
		return k / float64(n), math.NaN(), "share of items moving one way (no unit of the metric)"
	case MethodFisher:
		p, _ := sum.Pooled(c.Key)
		k := fisherThreshold(int(math.Round(p.Correct)), int(math.Round(p.Total)), level)
		return k / p.Total, k / float64(cell.N()), "accuracy (correct/total pooled over repeats)"
	case MethodPairedBinomial:
		kb, _, n, _ := countRepeats(sum, sum, c.Key)
		t, words := pairedThreshold(kb, n, level), 0.0
		for _, x := range n {
			words += x
		}
		return t / words, t / float64(len(n)), "share of words"
	case MethodWelch:
		nu := float64(2 * (cell.N() - 1))
		d = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(1-level/2) * cell.SD * math.Sqrt(2/float64(cell.N()))
		return d, d, "the metric's unit"
	}
	// exact: no spread, any change beyond the tolerance
	d = opts.Tolerance * math.Max(1, math.Abs(cell.Mean))
	if math.IsInf(cell.Mean, 0) {
		d = 0 // an infinite value agrees only with itself
	}
	return d, d, "any change (no spread in the baseline)"
}

// Shift is one tested cell's change as the figure of what moved shows it.
type Shift struct {
	Change Change
	// Band is the smallest change of the cell flagged at the baseline's size when it moves
	// alone (cellThreshold), in the unit of Change.Baseline and Change.Run.
	Band float64
}

// Shifts returns every tested cell of v (a comparison against baseline, with the baseline's
// items) with its band (NaN for a paired cell of a utility measure: its test has no threshold in
// the metric's unit).
func Shifts(baseline []report.Row, items []Item, v Verdict, opts Options) ([]Shift, error) {
	sum, err := report.Aggregate(baseline, nil, 0.95)
	if err != nil {
		return nil, err
	}
	level := opts.Alpha / float64(max(1, len(v.Tested)))
	out := make([]Shift, 0, len(v.Tested))
	for _, c := range v.Tested {
		_, band, _ := cellThreshold(sum, itemIndex(items)[c.Key.String()], c, level, opts)
		out = append(out, Shift{Change: c, Band: band})
	}
	return out, nil
}

// fisherThreshold is the smallest shift k of the pooled count c of n for which Fisher's exact
// test of (c, n) against (c ± k, n) gives p ≤ level in both directions that exist (n + 1
// when none does).
func fisherThreshold(c, n int, level float64) float64 {
	one := func(dir int) (int, bool) {
		for k := 1; c+dir*k >= 0 && c+dir*k <= n; k++ {
			r := c + dir*k
			if stats.FisherExact(c, n-c, r, n-r) <= level {
				return k, true
			}
		}
		return 0, false
	}
	up, okUp := one(1)
	down, okDown := one(-1)
	switch {
	case okUp && okDown:
		return float64(max(up, down))
	case okUp:
		return float64(up)
	case okDown:
		return float64(down)
	}
	return float64(n + 1)
}

// pairedThreshold is the smallest total shift of the counts kb (of n per repeat), spread as
// evenly as the repeats allow, that pairedBinomialP flags at level in both directions that
// exist.
func pairedThreshold(kb, n []float64, level float64) float64 {
	total := 0.0
	for _, x := range n {
		total += x
	}
	one := func(dir float64) (float64, bool) {
		for t := 1.0; t <= total; t++ {
			kr := make([]float64, len(kb))
			ok := true
			for i := range kb {
				share := math.Floor(t / float64(len(kb)))
				if float64(i) < math.Mod(t, float64(len(kb))) {
					share++
				}
				kr[i] = kb[i] + dir*share
				if kr[i] < 0 || kr[i] > n[i] {
					ok = false
				}
			}
			if !ok {
				return 0, false
			}
			if pairedBinomialP(kb, kr, n) <= level {
				return t, true
			}
		}
		return 0, false
	}
	up, okUp := one(1)
	down, okDown := one(-1)
	switch {
	case okUp && okDown:
		return max(up, down)
	case okUp:
		return up
	case okDown:
		return down
	}
	return total + 1
}

// PowerString prints Power's table.
func PowerString(ps []MetricPower, m int, alpha float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "power at the baseline's size: %d cells tested at family-wise α = %g; one cell moving alone is flagged when its p ≤ α/%d = %.2g (Holm's first step).\n", m, alpha, m, alpha/float64(m))
	fmt.Fprintf(&b, "Smallest change flagged per cell (flagged about half the time at that size, almost always at twice it), smallest / median / largest over the metric's cells; a change beyond the metric's range (an accuracy change above 1) means no change of that cell is flagged at this size:\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "  %-9s %-30s %-15s %3d cells: %.3g / %.3g / %.3g (%s)\n", p.Rows, p.Metric, p.Method, p.Cells, p.Smallest, p.Median, p.Largest, p.Unit)
	}
	return b.String()
}
