package experiments

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"dptext/report"
	"dptext/rngs"
)

// VerdictConfig is the optional [verdict] table: which mechanism keeps more utility at the same
// attack success. For each set, every mechanism's utilities are interpolated along its ε curve
// at the attack levels chance + each of AboveChance, with intervals from a cluster bootstrap
// over the evaluation authors, and every pair of mechanisms is compared with Holm-corrected
// p-values (report.MatchedVerdicts). Written as verdict.md and verdict.csv in the run folder.
type VerdictConfig struct {
	// Attack is the id of the authorship attacker that sets the privacy level.
	Attack string `toml:"attack"`
	// AboveChance are the attack levels as accuracy above chance (1/authors), e.g. [0.05, 0.1].
	AboveChance []float64 `toml:"above_chance"`
	// Utilities are the ids of topic classifiers (per-item correctness) and utility measures
	// (per-item values) to compare.
	Utilities []string `toml:"utilities"`
	// Baseline is the mechanism that starts every curve (default "none"; "" for none).
	Baseline *string `toml:"baseline"`
	// Replicates of the bootstrap (default 1000), Confidence of the intervals (default 0.95),
	// Alpha the family-wise error rate of the verdicts (default 0.05).
	Replicates int     `toml:"replicates"`
	Confidence float64 `toml:"confidence"`
	Alpha      float64 `toml:"alpha"`
	// Halves also compares the mechanisms on two disjoint halves of the authors (a seeded
	// split) and says, for every significant verdict on all of them, whether it holds on each
	// half.
	Halves bool `toml:"halves"`
}

// validateVerdict fills the defaults of [verdict] and checks that it names configured scorers
// of the right tasks.
func (c *Config) validateVerdict() error {
	v := c.Verdict
	if v == nil {
		return nil
	}
	if v.Baseline == nil {
		none := "none"
		v.Baseline = &none
	}
	if v.Replicates == 0 {
		v.Replicates = 1000
	}
	if v.Confidence == 0 {
		v.Confidence = 0.95
	}
	if v.Alpha == 0 {
		v.Alpha = 0.05
	}
	scorer := func(id string) (ComponentConfig, bool) {
		for _, s := range c.Scorers {
			if s.ID() == id {
				return s, true
			}
		}
		return ComponentConfig{}, false
	}
	var ids []string
	for _, s := range c.Scorers {
		ids = append(ids, s.ID())
	}
	if s, ok := scorer(v.Attack); !ok || Scorers[s.Name].Task != TaskAuthor {
		return c.errAt("verdict", "attack", "%q: want the id of a configured authorship attacker (scorers: %s)", v.Attack, strings.Join(ids, ", "))
	}
	if len(v.AboveChance) == 0 {
		return c.errAt("verdict", "above_chance", "missing: want attack levels above chance, e.g. [0.05, 0.1]")
	}
	for _, x := range v.AboveChance {
		if !(x >= 0 && x < 1) {
			return c.errAt("verdict", "above_chance", "%v: want values in [0, 1)", x)
		}
	}
	if len(v.Utilities) == 0 {
		return c.errAt("verdict", "utilities", "missing: want ids of topic classifiers or utility measures")
	}
	for _, u := range v.Utilities {
		if s, ok := scorer(u); !ok || Scorers[s.Name].Task == TaskAuthor {
			return c.errAt("verdict", "utilities", "%q: want the id of a configured topic classifier or utility measure (scorers: %s)", u, strings.Join(ids, ", "))
		}
	}
	if *v.Baseline != "" {
		found := false
		for _, m := range c.Mechanisms {
			found = found || m.ID() == *v.Baseline
		}
		if !found {
			return c.errAt("verdict", "baseline", "%q: want the id of a configured mechanism (normally \"none\") or \"\"", *v.Baseline)
		}
	}
	switch {
	case v.Replicates < 100 || v.Replicates > 100_000:
		return c.errAt("verdict", "replicates", "%d: want 100 to 100000", v.Replicates)
	case !(v.Confidence > 0 && v.Confidence < 1):
		return c.errAt("verdict", "confidence", "%v: want a value in (0, 1)", v.Confidence)
	case !(v.Alpha > 0 && v.Alpha < 1):
		return c.errAt("verdict", "alpha", "%v: want a value in (0, 1)", v.Alpha)
	}
	return nil
}

// itemScore is one scorer's score of one item in one cell.
type itemScore struct {
	cell cell
	pred prediction
}

// writeVerdicts writes verdict.md and verdict.csv for every set from the item scores of the
// cells. The items of a set are its (repeat, item) pairs; the clusters are their authors.
func (r *runner) writeVerdicts(dir string, items []itemScore) error {
	var md bytes.Buffer
	var rows [][]string
	for si, set := range r.sets {
		res, err := r.setVerdict(si, items)
		if err != nil {
			return fmt.Errorf("verdict for set %s: %w", set.Name, err)
		}
		md.WriteString(res.Markdown(set.Name))
		out := res.CSV(set.Name)
		if len(rows) > 0 {
			out = out[1:]
		}
		rows = append(rows, out...)
	}
	var c bytes.Buffer
	w := csv.NewWriter(&c)
	_ = w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "verdict.csv"), c.Bytes()); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "verdict.md"), md.Bytes())
}

// setVerdict gathers the item scores of set si into curve points and runs the comparison.
func (r *runner) setVerdict(si int, items []itemScore) (*report.VerdictResult, error) {
	v := r.cfg.Verdict
	type itemKey struct{ rep, item int }
	type pointKey struct {
		mech int
		eps  epsilon
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
				return nil, fmt.Errorf("cell %s: scorer %s item %d: value %q: %v", it.cell.path(r.cfg, r.sets), it.pred.Scorer, it.pred.Item, it.pred.Value, err)
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
	var authors []string
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
	cluster := make([]int, len(keys))
	for i, k := range keys {
		cluster[i] = ai[authorOf[k]]
	}
	var points []report.CurvePoint
	for _, pk := range order {
		p := report.CurvePoint{Mechanism: r.cfg.Mechanisms[pk.mech].ID(), Epsilon: pk.eps.rowValue(), Scores: map[string][]float64{}}
		for name := range wanted {
			xs := make([]float64, len(keys))
			for i, k := range keys {
				x, ok := scores[pk][name][k]
				if !ok {
					return nil, fmt.Errorf("mechanism %s ε %s: scorer %s has no score for item %d of repeat %d: the items are not paired", p.Mechanism, pk.eps, name, k.item, k.rep)
				}
				xs[i] = x
			}
			p.Scores[name] = xs
		}
		points = append(points, p)
	}
	chance := 1 / float64(len(r.sets[si].Authors))
	spec := report.VerdictSpec{Attack: v.Attack, Utilities: v.Utilities, Baseline: *v.Baseline,
		Replicates: v.Replicates, Confidence: v.Confidence, Alpha: v.Alpha}
	for _, x := range v.AboveChance {
		spec.Levels = append(spec.Levels, chance+x)
		spec.LevelNames = append(spec.LevelNames, fmt.Sprintf("chance %.3g + %.3g", chance, x))
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no item scores of %s or the utilities", v.Attack)
	}
	name := r.sets[si].Name
	res, err := report.MatchedVerdicts(spec, cluster, len(authors), points, rngs.New(r.cfg.Seed, "verdict/set="+name))
	if err != nil || !v.Halves {
		return res, err
	}
	if len(authors) < 4 {
		return nil, fmt.Errorf("halves: %d authors: want at least 4 (2 per half)", len(authors))
	}
	perm := rngs.New(r.cfg.Seed, "verdict-halves/set="+name).Perm(len(authors))
	var halves [2]*report.VerdictResult
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
		hp := make([]report.CurvePoint, len(points))
		for j, p := range points {
			hp[j] = report.CurvePoint{Mechanism: p.Mechanism, Epsilon: p.Epsilon, Scores: map[string][]float64{}}
			for s, xs := range p.Scores {
				ys := make([]float64, len(sub))
				for k, i := range sub {
					ys[k] = xs[i]
				}
				hp[j].Scores[s] = ys
			}
		}
		if halves[h], err = report.MatchedVerdicts(spec, subCluster, len(in), hp, rngs.New(r.cfg.Seed, fmt.Sprintf("verdict/set=%s/half=%d", name, h))); err != nil {
			return nil, err
		}
	}
	res.CheckHalves(halves[0], halves[1])
	return res, nil
}
