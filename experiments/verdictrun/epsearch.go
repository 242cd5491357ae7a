package verdictrun

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/report/verdict"
)

// searchAxis names a privacy axis of the verdicts on which the ε search runs.
type searchAxis int

const (
	// attackAxis is [verdict]'s: the attack's success at chance + above_chance.
	attackAxis searchAxis = iota
	// empiricalAxis is [distinguish]'s: the distinguisher's accuracy at verdict_levels of
	// empirical document ε.
	empiricalAxis
)

// searchRules are the search's rules per axis.
var searchRules = map[searchAxis]verdict.SearchRule{attackAxis: verdict.DefaultSearchRule, empiricalAxis: verdict.EmpiricalSearchRule}

// axisSearch is what the ε search found on one axis of one set: the mechanisms whose search for
// a level reached the end of their ε range (verdict.Spec.RangeEnds) and the cells it asked for,
// in words.
type axisSearch struct {
	ends  map[string]bool
	added []string
}

// searchEnds returns the mechanisms whose ε search on axis reached the end of their ε range in
// set si (nil without a search).
func (o *Run) searchEnds(si int, axis searchAxis) map[string]bool {
	if si < len(o.search) && o.search[si][axis] != nil {
		return o.search[si][axis].ends
	}
	return nil
}

// searchNotes returns the sentence saying what the ε search on axis added in set si, to print
// under that axis's tables (nil when it added nothing).
func (o *Run) searchNotes(si int, axis searchAxis) []string {
	if si >= len(o.search) || o.search[si][axis] == nil || len(o.search[si][axis].added) == 0 {
		return nil
	}
	what := "the attack"
	if axis == empiricalAxis {
		what = "the distinguisher's accuracy"
	}
	rule := searchRules[axis]
	return []string{fmt.Sprintf("ε search on this axis (at most %d rounds; a level counts as bracketed with a point %g standard errors of %s above it and one below, the two around it at most %g standard errors apart): added %s.",
		o.cfg.Verdict.SearchRounds, rule.Margin, what, rule.Width, strings.Join(o.search[si][axis].added, "; "))}
}

// Search is the ε search of [verdict] (search = true): after the grid's cells are
// done, it adds cells at new ε for every mechanism whose curve does not yet bracket a level of
// a verdict axis as its rule asks (searchRules; verdict.Propose: beyond the grid ×4 or ÷4,
// within it the midpoint in log ε of the bracket), runs them, and repeats for at most
// search_rounds rounds. It searches on every axis whose position a mechanism's ε moves: the
// attack's (chance + above_chance) and, with [distinguish] verdict_levels, the empirical ε's
// (the distinguisher's accuracy at distance verdict_distance). Each round's proposals are the
// union of both axes' (a proposal within 5 % in ε of one the other axis made for the same
// mechanism is served by that one's cells, and listed on both axes). The added cells are
// ordinary cells (set × mechanism × ε × repeat: cached, resumable, in results.csv); each
// round's proposals depend only on the finished cells, so a resumed run proposes the same ε and
// finds their cells done, at any --jobs. A sharded run's shards do not search: `dptext merge`
// does, after checking every shard's cells, and computes the added cells itself. It returns
// every cell of the run (the grid's, then the added ones) and records per set and axis which
// mechanisms ran into the end of their ε range and what was added (o.search).
func (o *Run) Search(all []Cell) ([]Cell, error) {
	v := o.cfg.Verdict
	o.search = make([]map[searchAxis]*axisSearch, len(o.sets))
	if v == nil || !*v.Search {
		return all, nil
	}
	ranges := map[string]verdict.EpsilonRange{}
	index := map[string]int{}
	for mi, m := range o.cfg.Mechanisms {
		spec := registry.Mechanisms[m.Name]
		if !spec.UsesEpsilon {
			continue
		}
		ranges[m.ID()] = verdict.EpsilonRange{Min: spec.Epsilons.Min, Max: spec.Epsilons.Max}
		index[m.ID()] = mi
	}
	for si := range o.sets {
		o.search[si] = map[searchAxis]*axisSearch{attackAxis: {}}
	}
	for round := 1; round <= v.SearchRounds; round++ {
		items, err := o.host.Items(all)
		if err != nil {
			return nil, err
		}
		var fresh []Cell
		for si := range o.sets {
			points, cluster, authors, err := o.curvePoints(si, items)
			if err != nil {
				return nil, err
			}
			studies := map[searchAxis]verdictStudy{attackAxis: {spec: o.attackSpec(si), points: points}}
			ds, err := o.distinguishStudy(si, items, points, cluster)
			if err != nil {
				return nil, err
			}
			if ds != nil {
				studies[empiricalAxis] = *ds
				if o.search[si][empiricalAxis] == nil {
					o.search[si][empiricalAxis] = &axisSearch{}
				}
			}
			proposed := map[string][]float64{} // mechanism → ε asked for this round, on any axis
			for _, axis := range []searchAxis{attackAxis, empiricalAxis} {
				st, ok := studies[axis]
				if !ok {
					continue
				}
				props, ends := verdict.Propose(st.spec, searchRules[axis], cluster, len(authors), st.points, ranges)
				found := o.search[si][axis]
				found.ends = ends
				for _, p := range props {
					e := report.EpsilonOf(p.Epsilon)
					if why := o.refusedEpsilon(si, index[p.Mechanism], e); why != "" {
						// the mechanism cannot run at this ε on this data (e.g. truncated-gumbel's
						// smallest ε depends on the vocabulary): its range ends before it
						ends[p.Mechanism] = true
						note := fmt.Sprintf("%s ε = %s refused by the mechanism (%s), so its range ends there", p.Mechanism, e, why)
						if !slices.Contains(found.added, note) {
							found.added = append(found.added, note)
						}
						continue
					}
					k := slices.IndexFunc(proposed[p.Mechanism], func(x float64) bool { return math.Abs(math.Log(x/p.Epsilon)) < math.Log(1.05) })
					if k >= 0 { // the other axis asked for (nearly) this ε: its cells serve both
						e = report.EpsilonOf(proposed[p.Mechanism][k])
					}
					found.added = append(found.added, fmt.Sprintf("%s ε = %s (round %d: %s)", p.Mechanism, e, round, p.Reason))
					if k >= 0 {
						continue
					}
					proposed[p.Mechanism] = append(proposed[p.Mechanism], p.Epsilon)
					for rep := 0; rep < o.cfg.Repeats; rep++ {
						fresh = append(fresh, Cell{si, index[p.Mechanism], e, rep})
					}
				}
			}
		}
		if len(fresh) == 0 {
			break
		}
		o.host.Logf("ε search round %d: %d new cells", round, len(fresh))
		all = orderCells(append(all, fresh...))
		if err := o.host.Compute(all); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// refusedEpsilon says why mechanism mi cannot run at ε on set si's draws (its constructor's
// error), or "" when it can on every repeat's draw (Host.CheckEpsilon: the mechanisms it
// builds to find out are kept for the cells).
func (o *Run) refusedEpsilon(si, mi int, eps report.Epsilon) string {
	for rep := 0; rep < o.cfg.Repeats; rep++ {
		if err := o.host.CheckEpsilon(Cell{si, mi, eps, rep}); err != nil {
			return err.Error()
		}
	}
	return ""
}
