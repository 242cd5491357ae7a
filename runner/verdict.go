package runner

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"dptext/mechanisms"
	"dptext/report"
	"dptext/report/verdict"
	"dptext/rngs"
	"dptext/rundir"
)

// itemScore is one scorer's score of one item in one cell.
type itemScore struct {
	cell cell
	pred rundir.Prediction
}

// writeVerdicts writes verdict.md and verdict.csv for every set from the item scores of the
// cells. The items of a set are its (repeat, item) pairs; the clusters are their authors.
func (r *runner) writeVerdicts(dir string, items []itemScore, results []report.Row) error {
	var md bytes.Buffer
	var rows [][]string
	for si, set := range r.sets {
		res, err := r.setVerdict(si, items, results)
		if err != nil {
			return fmt.Errorf("verdict for set %s: %w", set.Name, err)
		}
		for _, v := range res {
			md.WriteString(v.Markdown(set.Name))
			out := v.CSV(set.Name)
			if len(rows) > 0 {
				out = out[1:]
			}
			rows = append(rows, out...)
		}
	}
	var c bytes.Buffer
	w := csv.NewWriter(&c)
	_ = w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return err
	}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "verdict.csv"), c.Bytes()); err != nil {
		return err
	}
	return rundir.WriteFileAtomic(filepath.Join(dir, "verdict.md"), md.Bytes())
}

// setVerdict gathers the item scores of set si into curve points and runs the comparisons:
// at the attack levels, then at the claimed and audited ε levels of each unit.
func (r *runner) setVerdict(si int, items []itemScore, results []report.Row) ([]*verdict.Result, error) {
	v := r.cfg.Verdict
	points, cluster, authors, err := r.curvePoints(si, items)
	if err != nil {
		return nil, err
	}
	chance := 1 / float64(len(r.sets[si].Authors))
	spec := verdict.Spec{Attack: v.Attack, Utilities: v.Utilities, Baseline: *v.Baseline,
		Replicates: v.Replicates, Confidence: v.Confidence, Alpha: v.Alpha}
	for _, x := range v.AboveChance {
		spec.Levels = append(spec.Levels, chance+x)
		spec.LevelNames = append(spec.LevelNames, fmt.Sprintf("chance %.3g + %.3g", chance, x))
	}
	name := r.sets[si].Name
	res, err := verdict.Matched(spec, cluster, len(authors), points, rngs.New(uint64(r.cfg.Seed), "verdict/set="+name))
	if err != nil {
		return nil, err
	}
	out := []*verdict.Result{res}
	for _, axis := range []struct {
		name   string
		levels map[string][]float64
	}{{"claimed", v.ClaimedEps}, {"audited", v.AuditedEps}} {
		if len(axis.levels) == 0 {
			continue
		}
		units, err := r.mechanismUnits(si, items)
		if err != nil {
			return nil, err
		}
		rs, err := r.unitVerdicts(si, axis.name, axis.levels, units, points, cluster, len(authors), results)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	dv, err := r.distinguishVerdict(si, items, points, cluster, authors)
	if err != nil {
		return nil, err
	}
	if dv != nil {
		out = append(out, dv)
	}
	if !v.Halves {
		return out, nil
	}
	if err := r.checkHalves(name, res, spec, cluster, authors, points); err != nil {
		return nil, err
	}
	return out, nil
}

// curvePoints gathers the item scores of set si into one curve point per mechanism and ε
// (every wanted scorer's score of every item, items in repeat and position order), with each
// item's cluster (its author's index among the sorted authors).
func (r *runner) curvePoints(si int, items []itemScore) (points []verdict.CurvePoint, cluster []int, authors []string, err error) {
	v := r.cfg.Verdict
	type itemKey struct{ rep, item int }
	type pointKey struct {
		mech int
		eps  report.Epsilon
	}
	index := map[itemKey]int{}
	var keys []itemKey
	authorOf := map[itemKey]string{}
	scores := map[pointKey]map[string]map[itemKey]float64{}
	var order []pointKey
	wanted := map[string]bool{v.Attack: true}
	for _, u := range v.Utilities {
		wanted[u] = true
	}
	for _, it := range items {
		if it.cell.set != si || !wanted[it.pred.Scorer] {
			continue
		}
		k := itemKey{it.cell.rep, it.pred.Item}
		if _, ok := index[k]; !ok {
			index[k] = len(keys)
			keys = append(keys, k)
			authorOf[k] = it.pred.Author
		}
		pk := pointKey{it.cell.mech, it.cell.eps}
		if scores[pk] == nil {
			scores[pk] = map[string]map[itemKey]float64{}
			order = append(order, pk)
		}
		if scores[pk][it.pred.Scorer] == nil {
			scores[pk][it.pred.Scorer] = map[itemKey]float64{}
		}
		x := 0.0
		switch {
		case it.pred.Value != "":
			f, err := strconv.ParseFloat(it.pred.Value, 64)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("cell %s: scorer %s item %d: value %q: %v", it.cell.path(r.cfg, r.sets), it.pred.Scorer, it.pred.Item, it.pred.Value, err)
			}
			x = f
		case it.pred.Truth == it.pred.Prediction:
			x = 1
		}
		scores[pk][it.pred.Scorer][k] = x
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].rep != keys[j].rep {
			return keys[i].rep < keys[j].rep
		}
		return keys[i].item < keys[j].item
	})
	seen := map[string]bool{}
	for _, k := range keys {
		if a := authorOf[k]; !seen[a] {
			seen[a] = true
			authors = append(authors, a)
		}
	}
	sort.Strings(authors)
	ai := map[string]int{}
	for i, a := range authors {
		ai[a] = i
	}
	cluster = make([]int, len(keys))
	for i, k := range keys {
		cluster[i] = ai[authorOf[k]]
	}
	for _, pk := range order {
		p := verdict.CurvePoint{Mechanism: r.cfg.Mechanisms[pk.mech].ID(), Epsilon: pk.eps, Scores: map[string][]float64{}}
		for name := range wanted {
			xs := make([]float64, len(keys))
			for i, k := range keys {
				x, ok := scores[pk][name][k]
				if !ok {
					return nil, nil, nil, fmt.Errorf("mechanism %s ε %s: scorer %s has no score for item %d of repeat %d: the items are not paired", p.Mechanism, pk.eps, name, k.item, k.rep)
				}
				xs[i] = x
			}
			p.Scores[name] = xs
		}
		points = append(points, p)
	}
	if len(keys) == 0 {
		return nil, nil, nil, fmt.Errorf("no item scores of %s or the utilities", v.Attack)
	}
	return points, cluster, authors, nil
}

// checkHalves reruns the comparisons of res (set name) on two disjoint halves of the authors, drawn from
// the seed, and records whether each half agrees (VerdictResult.CheckHalves).
func (r *runner) checkHalves(name string, res *verdict.Result, spec verdict.Spec, cluster []int, authors []string, points []verdict.CurvePoint) error {
	if len(authors) < 4 {
		return fmt.Errorf("halves: %d authors: want at least 4 (2 per half)", len(authors))
	}
	perm := rngs.New(uint64(r.cfg.Seed), "verdict-halves/set="+name).Perm(len(authors))
	var halves [2]*verdict.Result
	for h := range halves {
		in := map[int]int{} // author index → index within the half
		for _, a := range perm[h*len(authors)/2 : (h+1)*len(authors)/2] {
			in[a] = len(in)
		}
		var sub []int
		var subCluster []int
		for i, c := range cluster {
			if k, ok := in[c]; ok {
				sub = append(sub, i)
				subCluster = append(subCluster, k)
			}
		}
		hp := make([]verdict.CurvePoint, len(points))
		for j, p := range points {
			hp[j] = verdict.CurvePoint{Mechanism: p.Mechanism, Epsilon: p.Epsilon, Scores: map[string][]float64{}}
			for s, xs := range p.Scores {
				ys := make([]float64, len(sub))
				for k, i := range sub {
					ys[k] = xs[i]
				}
				hp[j].Scores[s] = ys
			}
		}
		var err error
		if halves[h], err = verdict.Matched(spec, subCluster, len(in), hp, rngs.New(uint64(r.cfg.Seed), fmt.Sprintf("verdict/set=%s/half=%d", name, h))); err != nil {
			return err
		}
	}
	res.CheckHalves(halves[0], halves[1])
	return nil
}

// guaranteeUnit names the unit of a guarantee's ε: "pure" (per document), "metric:<metric>",
// or "" for no guarantee.
func guaranteeUnit(g mechanisms.Guarantee) string {
	switch g.Kind {
	case mechanisms.KindPure:
		return "pure"
	case mechanisms.KindMetric:
		return "metric:" + g.Metric
	}
	return ""
}

// unitAxis describes the axis of a unit: claimed ε per document (pure) or per unit of word
// distance (metric), or audited ε per claim unit.
func unitAxis(axis, unit string) string {
	switch {
	case axis == "audited":
		return fmt.Sprintf("audited ε per claim unit (%s)", unit)
	case unit == "pure":
		return "claimed ε per document (pure)"
	}
	return fmt.Sprintf("claimed ε per unit of %s word distance (%s)", strings.TrimPrefix(unit, "metric:"), unit)
}

// mechanismUnits derives the unit of each mechanism of set si that has item scores from its
// guarantee on the set's first evaluation document (the kind and metric of a guarantee do not
// depend on ε or on the document); mechanisms without a guarantee are left out.
func (r *runner) mechanismUnits(si int, items []itemScore) (map[string]string, error) {
	units := map[string]string{}
	done := map[int]bool{}
	for _, it := range items {
		c := it.cell
		if c.set != si || done[c.mech] {
			continue
		}
		done[c.mech] = true
		m, err := r.mechanism(c)
		if err != nil {
			return nil, err
		}
		set := r.sets[si].Draw(c.rep)
		if len(set.Eval) == 0 {
			continue
		}
		if u := guaranteeUnit(m.Guarantee(set.Eval[0])); u != "" {
			units[r.cfg.Mechanisms[c.mech].ID()] = u
		}
	}
	return units, nil
}

// unitVerdicts compares, for each configured unit, the mechanisms of that unit at its levels of
// claimed or audited ε (axis). A point's position is the mean over repeats of its privacy row
// (epsilon_doc, per document length for a metric unit, or audited_eps_lcb); an audited point at
// or above ceiling_share of its ceiling, or without an audited value, is left out and named.
func (r *runner) unitVerdicts(si int, axis string, levels map[string][]float64, units map[string]string, points []verdict.CurvePoint,
	cluster []int, nAuthors int, results []report.Row) ([]*verdict.Result, error) {
	v := r.cfg.Verdict
	set := r.sets[si]
	type key struct {
		mech string
		eps  report.Epsilon
	}
	sums := map[key]map[string]float64{}
	counts := map[key]map[string]int{}
	for _, row := range results {
		if row.Set != set.Name || row.Scorer != "privacy" || !row.Epsilon.Set() {
			continue
		}
		k := key{row.Mechanism, row.Epsilon}
		if sums[k] == nil {
			sums[k], counts[k] = map[string]float64{}, map[string]int{}
		}
		sums[k][row.Metric] += row.Value
		counts[k][row.Metric]++
	}
	mean := func(k key, metric string) (float64, bool) {
		n := counts[k][metric]
		if n == 0 {
			return math.NaN(), false
		}
		return sums[k][metric] / float64(n), true
	}
	// The mean evaluation document length over the repeats (a metric guarantee's document ε
	// is ε·N).
	words, docs := 0, 0
	for rep := 0; rep < r.cfg.Repeats; rep++ {
		for _, d := range set.Draw(rep).Eval {
			words += len(d)
			docs++
		}
	}
	var present []string
	for _, u := range units {
		if !slices.Contains(present, u) {
			present = append(present, u)
		}
	}
	sort.Strings(present)
	var out []*verdict.Result
	for _, unit := range slices.Sorted(maps.Keys(levels)) {
		spec := verdict.Spec{Axis: unitAxis(axis, unit), Utilities: v.Utilities, Replicates: v.Replicates, Confidence: v.Confidence, Alpha: v.Alpha}
		for _, x := range levels[unit] {
			spec.Levels = append(spec.Levels, x)
			spec.LevelNames = append(spec.LevelNames, axis+" ε "+strconv.FormatFloat(x, 'g', -1, 64))
		}
		var ps []verdict.CurvePoint
		var skipped, unaudited, mechs []string
		for _, p := range points {
			if units[p.Mechanism] != unit || !p.Epsilon.Set() {
				continue
			}
			if !slices.Contains(mechs, p.Mechanism) {
				mechs = append(mechs, p.Mechanism)
			}
			k := key{p.Mechanism, p.Epsilon}
			var x float64
			if axis == "claimed" {
				doc, ok := mean(k, "epsilon_doc")
				if !ok {
					return nil, fmt.Errorf("%s at ε = %v: no epsilon_doc row", p.Mechanism, p.Epsilon)
				}
				x = doc
				if unit != "pure" && docs > 0 {
					x = doc / (float64(words) / float64(docs))
				}
				x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64) // rounding noise of the mean
			} else {
				lcb, ok := mean(k, "audited_eps_lcb")
				ceil, _ := mean(k, "audited_eps_ceiling")
				switch {
				case !ok:
					unaudited = append(unaudited, fmt.Sprintf("%s at ε %v", p.Mechanism, p.Epsilon))
					continue
				case lcb >= v.CeilingShare*ceil:
					skipped = append(skipped, fmt.Sprintf("%s at ε %v (audited %.3g of ceiling %.3g)", p.Mechanism, p.Epsilon, lcb, ceil))
					continue
				}
				x = lcb
			}
			q := p
			q.X = x
			ps = append(ps, q)
		}
		switch {
		case len(mechs) == 0:
			spec.Notes = append(spec.Notes, fmt.Sprintf("No mechanism of this run has unit %s (units present: %s).", unit, strings.Join(present, ", ")))
		default:
			spec.Notes = append(spec.Notes, fmt.Sprintf("Mechanisms of unit %s: %s; mechanisms of other units are never compared with them.", unit, strings.Join(mechs, ", ")))
		}
		if len(skipped) > 0 {
			spec.Notes = append(spec.Notes, fmt.Sprintf("Left out (an audited ε at or above %.3g of its ceiling measures the audit's sample size, not the mechanism): %s.", v.CeilingShare, strings.Join(skipped, "; ")))
		}
		if len(unaudited) > 0 {
			spec.Notes = append(spec.Notes, fmt.Sprintf("Left out, no audited ε (no audit test bounded anything): %s.", strings.Join(unaudited, "; ")))
		}
		res, err := verdict.Matched(spec, cluster, nAuthors, ps, rngs.New(uint64(r.cfg.Seed), fmt.Sprintf("verdict/set=%s/%s=%s", set.Name, axis, unit)))
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}
