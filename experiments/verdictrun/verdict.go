package verdictrun

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
	"time"

	"dptext/attackers"
	"dptext/corpus"
	"dptext/experiments/report"
	"dptext/experiments/report/verdict"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// verdictStudy is one verdict table to compute: its spec, its curve points and the name of
// its bootstrap stream.
type verdictStudy struct {
	spec   verdict.Spec
	points []verdict.CurvePoint
	stream string
}

// Write writes verdict.md and verdict.csv for every set from the item scores of the
// cells. The items of a set are its (repeat, item) pairs; the clusters are their authors. Every
// comparison of the file is adjusted in one family (or, with [verdict] primary, the planned
// ones in theirs and the rest in an exploratory one) by the stepdown maximum over the same
// replicates; with halves, the significant verdicts are replicated on each half as their own
// family.
func (o *Run) Write(dir string, items []ItemScore, results []report.Row) error {
	start := time.Now()
	o.replicates = o.cfg.Verdict.Replicates
	all, names, perSet, halves, err := o.adjustedVerdicts(items, results)
	if err != nil {
		return err
	}
	if need := neededReplicates(all); o.cfg.Verdict.ReplicatesChosen && need > o.replicates {
		// The family's size is known only once the replicates say which pairs both reach
		// their level: resample with the replicates it needs.
		o.host.Logf("verdicts: %d replicates chosen for the family (2m/α, at most %d), resampling", need, verdict.MaxDefaultReplicates)
		o.replicates = need
		if all, names, perSet, halves, err = o.adjustedVerdicts(items, results); err != nil {
			return err
		}
	}
	if o.cfg.Verdict.Halves {
		if err := verdict.ReplicateOnHalves(all, halves[0], halves[1]); err != nil {
			return err
		}
	}
	compared := 0
	if len(all) > 0 {
		for _, f := range all[0].Families {
			compared += f.Size
		}
	}
	o.host.Logf("verdicts: %d tables, %d pairs compared, adjusted and replicated in %.1fs", len(all), compared, time.Since(start).Seconds())
	var md bytes.Buffer
	md.WriteString(verdict.Summary(all, names))
	var rows [][]string
	for si, set := range o.sets {
		for _, v := range perSet[si] {
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

// adjustedVerdicts computes every set's tables (and their halves') with o.replicates
// replicates and adjusts them in their families: all tables, each table's set name, the
// tables per set, and the halves' tables.
func (o *Run) adjustedVerdicts(items []ItemScore, results []report.Row) (all []*verdict.Result, names []string, perSet [][]*verdict.Result, halves [2][]*verdict.Result, err error) {
	perSet = make([][]*verdict.Result, len(o.sets))
	for si, set := range o.sets {
		res, hs, err := o.setVerdict(si, items, results)
		if err != nil {
			return nil, nil, nil, halves, fmt.Errorf("verdict for set %s: %w", set.Name, err)
		}
		perSet[si] = res
		all = append(all, res...)
		for range res {
			names = append(names, set.Name)
		}
		for h := range halves {
			halves[h] = append(halves[h], hs[h]...)
		}
	}
	if err := verdict.AdjustFamilies(all, o.primaryFamily()); err != nil {
		return nil, nil, nil, halves, err
	}
	return all, names, perSet, halves, nil
}

// neededReplicates is the replicates the largest family of the adjusted tables needs when
// the config does not give them (verdict.DefaultReplicates; 0 without tables).
func neededReplicates(all []*verdict.Result) int {
	need := 0
	if len(all) > 0 {
		for _, f := range all[0].Families {
			need = max(need, verdict.DefaultReplicates(f.Size, f.Alpha))
		}
	}
	return need
}

// setVerdict gathers the item scores of set si into curve points and runs the comparisons:
// at the attack levels, then at the claimed and audited ε levels of each unit; with halves,
// the same tables on each of two disjoint halves of the authors (in the same order).
func (o *Run) setVerdict(si int, items []ItemScore, results []report.Row) (full []*verdict.Result, halves [2][]*verdict.Result, err error) {
	v := o.cfg.Verdict
	points, cluster, authors, err := o.curvePoints(si, items)
	if err != nil {
		return nil, halves, err
	}
	spec := o.attackSpec(si)
	name := o.sets[si].Name
	studies := []verdictStudy{{spec, points, "verdict/set=" + name}}
	for _, axis := range []struct {
		name   string
		levels map[string][]float64
	}{{"claimed", v.ClaimedEps}, {"audited", v.AuditedEps}} {
		if len(axis.levels) == 0 {
			continue
		}
		units, err := o.mechanismUnits(si, items)
		if err != nil {
			return nil, halves, err
		}
		us, err := o.unitStudies(si, axis.name, axis.levels, units, points, results)
		if err != nil {
			return nil, halves, err
		}
		studies = append(studies, us...)
	}
	ds, err := o.distinguishStudy(si, items, points, cluster)
	if err != nil {
		return nil, halves, err
	}
	if ds != nil {
		studies = append(studies, *ds)
	}
	all := make([]int, len(cluster))
	for i := range all {
		all[i] = i
	}
	if full, err = runStudies(studies, all, cluster, len(authors), uint64(o.cfg.Seed), "verdict/set="+name); err != nil {
		return nil, halves, err
	}
	if !v.Halves {
		return full, halves, nil
	}
	if len(authors) < 4 {
		return nil, halves, fmt.Errorf("halves: %d authors: want at least 4 (2 per half)", len(authors))
	}
	perm := rngs.New(uint64(o.cfg.Seed), "verdict-halves/set="+name).Perm(len(authors))
	for h := range halves {
		in := map[int]int{} // author index → index within the half
		for _, a := range perm[h*len(authors)/2 : (h+1)*len(authors)/2] {
			in[a] = len(in)
		}
		var sub, subCluster []int
		for i, c := range cluster {
			if k, ok := in[c]; ok {
				sub = append(sub, i)
				subCluster = append(subCluster, k)
			}
		}
		if halves[h], err = runStudies(studies, sub, subCluster, len(in), uint64(o.cfg.Seed), fmt.Sprintf("verdict/set=%s/half=%d", name, h)); err != nil {
			return nil, halves, err
		}
	}
	return full, halves, nil
}

// runStudies computes each study on the items sub (their clusters subCluster, of n), all with
// the same bootstrap weights (drawn once from the stream named stream), so that the family's
// maximum statistic sees the dependence between the tables of one set of authors.
func runStudies(studies []verdictStudy, sub, subCluster []int, n int, seed uint64, stream string) ([]*verdict.Result, error) {
	var out []*verdict.Result
	var weights [][]float64
	for _, st := range studies {
		if weights == nil {
			weights = verdict.ClusterWeights(rngs.New(seed, stream), n, st.spec.Replicates)
		}
		ps := make([]verdict.CurvePoint, len(st.points))
		for j, p := range st.points {
			ps[j] = p
			ps[j].Scores = map[string][]float64{}
			for s, xs := range p.Scores {
				ys := make([]float64, len(sub))
				for k, i := range sub {
					ys[k] = xs[i]
				}
				ps[j].Scores[s] = ys
			}
		}
		res, err := verdict.MatchedWeights(st.spec, subCluster, n, ps, weights)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// primaryFamily is the membership of [verdict] primary's family (nil without one: every
// comparison in one family): a pair of the attack or empirical axes whose two mechanisms are a
// planned pair, or one of which is a planned "every mechanism against" X.
func (o *Run) primaryFamily() func(*verdict.Result, *verdict.Pair) bool {
	v := o.cfg.Verdict
	if len(v.Primary) == 0 {
		return nil
	}
	return func(_ *verdict.Result, p *verdict.Pair) bool {
		for _, c := range v.PrimaryComparisons {
			switch {
			case c.Against != "" && (p.A == c.Against || p.B == c.Against):
				return true
			case c.A != "" && (p.A == c.A && p.B == c.B || p.A == c.B && p.B == c.A):
				return true
			}
		}
		return false
	}
}

// curvePoints gathers the item scores of set si into one curve point per mechanism and ε
// (every wanted scorer's score of every item, items in repeat and position order), with each
// item's cluster (its author's index among the sorted authors).
func (o *Run) curvePoints(si int, items []ItemScore) (points []verdict.CurvePoint, cluster []int, authors []string, err error) {
	v := o.cfg.Verdict
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
	// wanted maps the scorer column of the item scores read to the curve points' key: the
	// attack's per-item reciprocal ranks, when it matches on them, stand for the attack.
	wanted := map[string]string{v.Attack: v.Attack}
	if v.AttackMeasure == runconfig.AttackReciprocalRank {
		wanted = map[string]string{rankScorer(v.Attack): v.Attack}
	}
	for _, u := range v.Utilities {
		wanted[u] = u
	}
	for _, it := range items {
		name, ok := wanted[it.Pred.Scorer]
		if it.Cell.Set != si || !ok {
			continue
		}
		k := itemKey{it.Cell.Rep, it.Pred.Item}
		if _, ok := index[k]; !ok {
			index[k] = len(keys)
			keys = append(keys, k)
			authorOf[k] = it.Pred.Author
		}
		pk := pointKey{it.Cell.Mech, it.Cell.Eps}
		if scores[pk] == nil {
			scores[pk] = map[string]map[itemKey]float64{}
			order = append(order, pk)
		}
		if scores[pk][name] == nil {
			scores[pk][name] = map[itemKey]float64{}
		}
		x := 0.0
		switch {
		case it.Pred.Value != "":
			f, err := strconv.ParseFloat(it.Pred.Value, 64)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("cell %s: scorer %s item %d: value %q: %v", o.cellPath(it.Cell), it.Pred.Scorer, it.Pred.Item, it.Pred.Value, err)
			}
			x = f
		case it.Pred.Truth == it.Pred.Prediction:
			x = 1
		}
		scores[pk][name][k] = x
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
		p := verdict.CurvePoint{Mechanism: o.cfg.Mechanisms[pk.mech].ID(), Epsilon: pk.eps, Scores: map[string][]float64{}}
		for _, name := range wanted {
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

// attackSpec is the verdict's spec on the attack axis of set si: its levels chance +
// above_chance, and what the ε search found on this axis (its range ends and notes).
func (o *Run) attackSpec(si int) verdict.Spec {
	v := o.cfg.Verdict
	measure, chance := o.attackMeasure(len(o.sets[si].Authors))
	closed := o.closedSetShare(si)
	chance *= closed
	spec := verdict.Spec{Attack: v.Attack, Measure: measure, Utilities: v.Utilities, Baseline: *v.Baseline,
		Replicates: o.replicateCount(), Confidence: v.Confidence, Alpha: v.Alpha, RangeEnds: o.searchEnds(si, attackAxis), Notes: o.searchNotes(si, attackAxis)}
	if closed < 1 {
		spec.Notes = append(spec.Notes, fmt.Sprintf("Chance on this set is the closed-set share of the evaluation texts (%.3f: a guess naming an author is wrong on every open-set text) times a uniform guess's among the %d authors, as in the tables.", closed, len(o.sets[si].Authors)))
	}
	for _, x := range v.AboveChance {
		spec.Levels = append(spec.Levels, chance+x)
		spec.LevelNames = append(spec.LevelNames, fmt.Sprintf("chance %.3g + %.3g", chance, x))
	}
	return spec
}

// attackMeasure names the [verdict]'s attack measure for the verdict's text ("" for accuracy)
// and gives its chance level among n authors: 1/n for accuracy, H_n/n (the mean reciprocal
// rank of a uniform guess) for reciprocal rank.
func (o *Run) attackMeasure(n int) (name string, chance float64) {
	if o.cfg.Verdict.AttackMeasure == runconfig.AttackReciprocalRank {
		return "reciprocal rank", attackers.ChanceReciprocalRank(n)
	}
	return "", 1 / float64(n)
}

// closedSetShare is the share of set si's evaluation texts, over every repeat's draw, written
// by one of its authors (1 without open-set texts): the factor of chance the tables use
// (render's authorChance).
func (o *Run) closedSetShare(si int) float64 {
	closed, total := 0, 0
	for rep := 0; rep < o.cfg.Repeats; rep++ {
		for _, a := range o.sets[si].Draw(rep).EvalAuthors {
			total++
			if a != corpus.UnknownAuthor {
				closed++
			}
		}
	}
	if total == 0 {
		return 1
	}
	return float64(closed) / float64(total)
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
func (o *Run) mechanismUnits(si int, items []ItemScore) (map[string]string, error) {
	units := map[string]string{}
	done := map[int]bool{}
	for _, it := range items {
		c := it.Cell
		if c.Set != si || done[c.Mech] {
			continue
		}
		done[c.Mech] = true
		m, err := o.host.Mechanism(c)
		if err != nil {
			return nil, err
		}
		set := o.sets[si].Draw(c.Rep)
		if len(set.Eval) == 0 {
			continue
		}
		if u := guaranteeUnit(m.Guarantee(set.Eval[0])); u != "" {
			units[o.cfg.Mechanisms[c.Mech].ID()] = u
		}
	}
	return units, nil
}

// unitStudies makes, for each configured unit, the study comparing the mechanisms of that
// unit at its levels of claimed or audited ε (axis). A point's position is the mean over
// repeats of its privacy row (epsilon_doc, per document length for a metric unit, or
// audited_eps_lcb). The audited axis takes only exact losses: a point whose audit ceiling is
// finite (a counting lower bound: the mechanism loses at least that, not exactly that) or
// that has no audited value is left out and named, so that a bound is never compared as a
// position.
func (o *Run) unitStudies(si int, axis string, levels map[string][]float64, units map[string]string, points []verdict.CurvePoint,
	results []report.Row) ([]verdictStudy, error) {
	v := o.cfg.Verdict
	set := o.sets[si]
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
	for rep := 0; rep < o.cfg.Repeats; rep++ {
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
	var out []verdictStudy
	for _, unit := range slices.Sorted(maps.Keys(levels)) {
		spec := verdict.Spec{Axis: unitAxis(axis, unit), Utilities: v.Utilities, Replicates: o.replicateCount(), Confidence: v.Confidence, Alpha: v.Alpha}
		for _, x := range levels[unit] {
			spec.Levels = append(spec.Levels, x)
			spec.LevelNames = append(spec.LevelNames, axis+" ε "+strconv.FormatFloat(x, 'g', -1, 64))
		}
		var ps []verdict.CurvePoint
		var bounds, unaudited, mechs []string
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
				case !math.IsInf(ceil, 1):
					bounds = append(bounds, fmt.Sprintf("%s at ε %v (at least %.3g, ceiling %.3g)", p.Mechanism, p.Epsilon, lcb, ceil))
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
		if axis == "audited" {
			spec.Notes = append(spec.Notes, "Positions are exact losses on the audited pairs (an audit whose tests are exact: ceiling ∞); they are still lower bounds of the worst case over all pairs, the same kind of bound for every point compared.")
		}
		if len(bounds) > 0 {
			spec.Notes = append(spec.Notes, fmt.Sprintf("Left out, a counting lower bound (the mechanism loses at least this, not exactly this: no position to compare an exact loss with): %s.", strings.Join(bounds, "; ")))
		}
		if len(unaudited) > 0 {
			spec.Notes = append(spec.Notes, fmt.Sprintf("Left out, no audited ε (no audit test bounded anything): %s.", strings.Join(unaudited, "; ")))
		}
		out = append(out, verdictStudy{spec, ps, fmt.Sprintf("verdict/set=%s/%s=%s", set.Name, axis, unit)})
	}
	return out, nil
}
