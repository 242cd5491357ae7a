package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/report/verdict"
	"dptext/experiments/rundir"
)

// searchEpsilons is the ε search of [verdict] (search = true): after the grid's cells are
// done, it adds cells at new ε for every mechanism whose curve does not yet bracket an attack
// level as verdict.DefaultSearchRule asks (verdict.Propose: beyond the grid ×4 or ÷4, within
// it the midpoint in log ε of the bracket), runs them, and repeats for at most search_rounds rounds. The
// added cells are ordinary cells (set × mechanism × ε × repeat: cached, resumable, in
// results.csv); each round's proposals depend only on the finished cells, so a resumed run
// proposes the same ε and finds their cells done, at any --jobs. A sharded run's shards do
// not search: `dptext merge` does, after checking every shard's cells, and computes the added
// cells itself. It returns every cell of the run (the grid's, then the added ones) and records
// which mechanisms ran into the end of their ε range (runner.searchEnds) and what was added
// (runner.searchNotes).
func (r *runner) searchEpsilons(ctx context.Context, all []cell, opts RunOptions, live *rundir.LiveManifest) ([]cell, error) {
	v := r.cfg.Verdict
	r.searchEnds = make([]map[string]bool, len(r.sets))
	r.searchNotes = make([][]string, len(r.sets))
	if v == nil || !*v.Search {
		return all, nil
	}
	ranges := map[string]verdict.EpsilonRange{}
	index := map[string]int{}
	for mi, m := range r.cfg.Mechanisms {
		spec := registry.Mechanisms[m.Name]
		if !spec.UsesEpsilon {
			continue
		}
		ranges[m.ID()] = verdict.EpsilonRange{Min: spec.Epsilons.Min, Max: spec.Epsilons.Max}
		index[m.ID()] = mi
	}
	added := make([][]string, len(r.sets))
	for round := 1; round <= v.SearchRounds; round++ {
		out, err := r.collect(all)
		if err != nil {
			return nil, err
		}
		var fresh []cell
		for si, set := range r.sets {
			points, cluster, authors, err := r.curvePoints(si, out.items)
			if err != nil {
				return nil, err
			}
			measure, chance := r.attackMeasure(len(set.Authors))
			spec := verdict.Spec{Attack: v.Attack, Measure: measure, Baseline: *v.Baseline}
			for _, x := range v.AboveChance {
				spec.Levels = append(spec.Levels, chance+x)
			}
			props, ends := verdict.Propose(spec, verdict.DefaultSearchRule, cluster, len(authors), points, ranges)
			r.searchEnds[si] = ends
			for _, p := range props {
				e := report.EpsilonOf(p.Epsilon)
				added[si] = append(added[si], fmt.Sprintf("%s ε = %s (round %d: %s)", p.Mechanism, e, round, p.Reason))
				for rep := 0; rep < r.cfg.Repeats; rep++ {
					fresh = append(fresh, cell{si, index[p.Mechanism], e, rep})
				}
			}
		}
		if len(fresh) == 0 {
			break
		}
		r.logf("ε search round %d: %d new cells", round, len(fresh))
		all = orderCells(append(all, fresh...))
		if err := r.computeCells(ctx, all, opts, live); err != nil {
			return nil, err
		}
	}
	for si := range r.sets {
		if len(added[si]) > 0 {
			r.searchNotes[si] = append(r.searchNotes[si], fmt.Sprintf("ε search (at most %d rounds; a level counts as bracketed with a point %g standard errors of the attack above it and one below, the two around it at most %g standard errors apart): added %s.",
				v.SearchRounds, verdict.DefaultSearchRule.Margin, verdict.DefaultSearchRule.Width, strings.Join(added[si], "; ")))
		}
	}
	return all, nil
}

// orderCells sorts cells as the grid lists them — set, mechanism, ε from the largest, repeat —
// so that added ε take their place in results.csv.
func orderCells(cells []cell) []cell {
	slices.SortStableFunc(cells, func(a, b cell) int {
		switch {
		case a.set != b.set:
			return a.set - b.set
		case a.mech != b.mech:
			return a.mech - b.mech
		case a.eps != b.eps:
			return a.eps.Compare(b.eps)
		}
		return a.rep - b.rep
	})
	return cells
}
