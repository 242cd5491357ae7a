package verdictrun

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"dptext/experiments/report"
	"dptext/experiments/report/verdict"
	"dptext/experiments/runconfig"
	"dptext/mechanisms/distinguish"
)

// distinguishStudy compares, with [distinguish] verdict_levels, every mechanism with an ε grid
// at matched empirical document-level ε (one scale for all: no unit of guarantee separates them),
// at distance verdict_distance, by the rules of the attack axis (verdict.Matched): the
// "attack" is the distinguisher's accuracy, each item scored with its author's mean pair
// accuracy (the runner's distinguishItems), and a level ε is the accuracy e^ε/(1 + e^ε) (runconfig.DistinguishLevelAccuracy, in the stable form 1/(1 + e^−ε)); a value comes only
// from two points of a mechanism's own grid, and the bootstrap over authors draws an author's pairs
// with his items, so the empirical ε's own uncertainty is in every interval. The authors' weights
// equal their pairs' when every author is x of equally many pairs (pairs a multiple of the
// authors: Pairs spreads them evenly). It is one study of verdict.md: under its one familywise
// correction and, with [verdict] halves, replicated on the attack axis's halves of the authors.
// The ε search (Search) runs on this axis too: its notes and the mechanisms that
// reached the end of their ε range are the spec's. It returns nil without verdict_levels.
func (o *Run) distinguishStudy(si int, items []ItemScore, points []verdict.CurvePoint, cluster []int) (*verdictStudy, error) {
	d, v := o.cfg.Distinguish, o.cfg.Verdict
	if d == nil || len(d.VerdictLevels) == 0 {
		return nil, nil
	}
	set := o.sets[si]
	k := distinguish.DistanceName(*d.VerdictDistance)
	name := "distinguish_" + k
	type itemKey struct{ rep, item int }
	type pointKey struct {
		mech string
		eps  report.Epsilon
	}
	values := map[pointKey]map[itemKey]float64{}
	for _, it := range items {
		if it.Cell.Set != si || it.Pred.Scorer != name {
			continue
		}
		x, err := strconv.ParseFloat(it.Pred.Value, 64)
		if err != nil {
			return nil, fmt.Errorf("cell %s: %s item %d: value %q: %v", o.cellPath(it.Cell), name, it.Pred.Item, it.Pred.Value, err)
		}
		pk := pointKey{o.cfg.Mechanisms[it.Cell.Mech].ID(), it.Cell.Eps}
		if values[pk] == nil {
			values[pk] = map[itemKey]float64{}
		}
		values[pk][itemKey{it.Cell.Rep, it.Pred.Item}] = x
	}
	spec := verdict.Spec{Attack: name, Utilities: v.Utilities, Baseline: *v.Baseline, Replicates: o.replicateCount(), Confidence: v.Confidence, Alpha: v.Alpha,
		Notes: []string{fmt.Sprintf("The privacy axis is the empirical document ε, %s: the accuracy A of the best untrained distinguisher (%s ≤ A is empirical ε ≤ ln(A/(1 − A))), each item scored with its author's mean pair accuracy, so the bootstrap over authors resamples the pairs with the utilities. Every mechanism with an ε grid is on this one scale.",
			distinguishDistanceText(*d.VerdictDistance), name)}, RangeEnds: o.searchEnds(si, empiricalAxis)}
	spec.Notes = append(spec.Notes, o.searchNotes(si, empiricalAxis)...)
	for _, x := range d.VerdictLevels {
		a := runconfig.DistinguishLevelAccuracy(x)
		spec.Levels = append(spec.Levels, a)
		spec.LevelNames = append(spec.LevelNames, "empirical ε "+strconv.FormatFloat(x, 'g', -1, 64))
	}
	ps := make([]verdict.CurvePoint, len(points))
	for j, p := range points {
		vals := values[pointKey{p.Mechanism, p.Epsilon}]
		if len(vals) != len(cluster) {
			return nil, fmt.Errorf("[distinguish] verdict: mechanism %s ε %s has %s scores for %d of the %d items: every author of set %s needs a pair (pairs = %d)",
				p.Mechanism, p.Epsilon, name, len(vals), len(cluster), set.Name, d.Pairs)
		}
		keys := slices.SortedFunc(maps.Keys(vals), func(a, b itemKey) int {
			if a.rep != b.rep {
				return a.rep - b.rep
			}
			return a.item - b.item
		})
		q := verdict.CurvePoint{Mechanism: p.Mechanism, Epsilon: p.Epsilon, Scores: maps.Clone(p.Scores)}
		q.Scores[name] = make([]float64, len(keys))
		for i, key := range keys {
			q.Scores[name][i] = vals[key]
		}
		ps[j] = q
	}
	return &verdictStudy{spec: spec, points: ps, stream: "verdict/set=" + set.Name + "/distinguish=" + k}, nil
}

// distinguishDistanceText names a distance in words.
func distinguishDistanceText(k int) string {
	switch k {
	case distinguish.Whole:
		return "whole documents by other authors"
	case 1:
		return "1 word of another author"
	}
	return strconv.Itoa(k) + " words of another author"
}
