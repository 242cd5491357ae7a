package render

import (
	"cmp"
	"dptext/experiments/report"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Caption is what the caller knows about a run and the results do not say.
type Caption struct {
	// Title heads table.md, e.g. "table1 — run 20250101T120000".
	Title string
	// Notes are extra caption sentences (corpus, embedding, attack protocol, …).
	Notes []string
}

// entry is one printed cell: a mean over repeats with its interval and, where given, the
// published number. Table names which table it belongs to ("main", "chance", "privacy").
type entry struct {
	Table, Set, Mechanism string
	Epsilon               report.Epsilon
	Label, Scorer, Metric string
	Present               bool
	N                     int
	Mean, SD, Low, High   float64
	Interval              string
	Reference             float64
	HasReference          bool
	// AtChance marks the mechanism-none entry of a scorer at chance (see atChance).
	AtChance bool
}

// rowKey is one table row: a mechanism and its ε.
type rowKey struct {
	Mechanism string
	Epsilon   report.Epsilon
}

// tables holds the cells of table.md, table.csv and table.tex.
type tables struct {
	layout  Layout
	summary *report.Summary
	sets    []string
	rows    []rowKey
	main    [][]entry // per row: per set, per column
	chance  []entry   // per set, per column
	privacy privacyTable
	// atChance lists the columns at chance on the original texts (see atChance).
	atChance []AtChance
}

// privacyTable holds the privacy and mechanism-diagnostic cells: per row, per column.
type privacyTable struct {
	columns []report.Key // Set, Scorer, Metric
	rows    []rowKey
	cells   [][]entry
}

// buildTables lays out the cells of a summary.
func buildTables(s *report.Summary, l Layout) tables {
	t := tables{layout: l, summary: s, sets: s.Sets(), atChance: atChance(s, l)}
	t.rows = tableRows(s, func(c report.Cell) bool { return c.Mechanism != "" })
	for _, r := range t.rows {
		var line []entry
		for _, set := range t.sets {
			for _, col := range l.Columns {
				line = append(line, t.mainEntry(set, r, col))
			}
		}
		t.main = append(t.main, line)
	}
	for _, set := range t.sets {
		for _, col := range l.Columns {
			t.chance = append(t.chance, t.chanceEntry(set, col))
		}
	}
	t.privacy = buildPrivacy(s, t.sets, l.PrivacyMetrics)
	return t
}

// tableRows lists the distinct (mechanism, ε) of the cells kept, in report order.
func tableRows(s *report.Summary, keep func(report.Cell) bool) []rowKey {
	var rows []rowKey
	// mechanisms ranks the mechanisms by first appearance, none first; seen indexes rows by ε's
	// text, so that two ε that print alike are one row.
	mechanisms := map[string]int{"none": 0}
	type seenKey struct{ mechanism, epsilon string }
	seen := map[seenKey]bool{}
	for _, c := range s.Cells {
		if !keep(c) {
			continue
		}
		if _, ok := mechanisms[c.Mechanism]; !ok {
			mechanisms[c.Mechanism] = len(mechanisms)
		}
		if k := (seenKey{c.Mechanism, c.Epsilon.String()}); !seen[k] {
			seen[k] = true
			rows = append(rows, rowKey{c.Mechanism, c.Epsilon})
		}
	}
	slices.SortStableFunc(rows, func(a, b rowKey) int {
		return cmp.Or(cmp.Compare(mechanisms[a.Mechanism], mechanisms[b.Mechanism]), a.Epsilon.Compare(b.Epsilon))
	})
	return rows
}

func (t tables) mainEntry(set string, r rowKey, col Column) entry {
	metric := t.layout.metric(col)
	k := report.Key{Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: col.Scorer, Metric: metric}
	e := entry{Table: "main", Set: set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Label: col.Label,
		Scorer: col.Scorer, Metric: metric, Mean: math.NaN(), SD: math.NaN(), Low: math.NaN(), High: math.NaN()}
	authors, ok := t.summary.Fact(set, "authors")
	if !ok {
		authors = math.NaN()
	}
	e.Reference, e.HasReference = t.layout.reference(set, col.Label, r.Mechanism, r.Epsilon, authors)
	if r.Mechanism == "none" && !r.Epsilon.Set() {
		for _, a := range t.atChance {
			e.AtChance = e.AtChance || (a.Set == set && a.Label == col.Label)
		}
	}
	c, ok := t.summary.Cell(k)
	if !ok {
		return e
	}
	e.Present, e.N, e.Mean, e.SD = true, c.N(), c.Mean, c.SD
	switch p, ok := t.summary.Pooled(k); {
	case t.layout.Interval == "wilson" && ok:
		scale := 1.0
		if metric == report.MetricCorrect {
			scale = p.Total / float64(c.N())
		}
		e.Interval, e.Low, e.High = "wilson", p.Low*scale, p.High*scale
	case c.N() > 1:
		e.Interval, e.Low, e.High = "t", c.Mean-c.HalfWidth, c.Mean+c.HalfWidth
	}
	return e
}

// chanceEntry is the expected score of a uniform guess (see chance).
func (t tables) chanceEntry(set string, col Column) entry {
	metric := t.layout.metric(col)
	e := entry{Table: "chance", Set: set, Mechanism: "chance", Label: col.Label,
		Scorer: col.Scorer, Metric: metric, Mean: math.NaN(), SD: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if v, ok := chance(t.summary, set, col.Scorer, col.Task, metric); ok {
		e.Present, e.Mean = true, v
	}
	return e
}

// chance is the score of a uniform guess at the task: for "accuracy" 1/topics, or 1/authors
// times the closed-set share where some evaluation texts are open-set (authorChance); for
// "correct" that times the evaluation documents (or the mean `total`); for
// "open_set_macro_f1" the set's FactChanceOpenSetMacroF1.
func chance(s *report.Summary, set, scorer, task, metric string) (float64, bool) {
	p, ok := math.NaN(), false
	switch task {
	case report.TaskAuthor:
		if metric == report.MetricOpenSetMacroF1 {
			return s.Fact(set, FactChanceOpenSetMacroF1)
		}
		p, ok = authorChance(s, set)
	case report.TaskTopic:
		var topics float64
		if topics, ok = s.Fact(set, "topics"); ok && topics > 0 {
			p = 1 / topics
		}
	}
	if !ok || !(p > 0) {
		return 0, false
	}
	switch metric {
	case report.MetricAccuracy:
		return p, true
	case report.MetricCorrect:
		docs, ok := s.Fact(set, "eval_docs")
		if !ok {
			docs, ok = firstTotal(s, set, scorer)
		}
		return docs * p, ok
	}
	return 0, false
}

func firstTotal(s *report.Summary, set, scorer string) (float64, bool) {
	for _, c := range s.Cells {
		if c.Set == set && c.Scorer == scorer && c.Metric == "total" {
			return c.Mean, true
		}
	}
	return 0, false
}

// buildPrivacy collects the privacy and mechanism-diagnostic cells: the metrics named in only
// (in that order), or all of them.
func buildPrivacy(s *report.Summary, sets []string, only []string) privacyTable {
	isPrivacy := func(c report.Cell) bool {
		return c.Scorer == report.PrivacyScorer || c.Scorer == report.MechanismScorer
	}
	var p privacyTable
	for _, set := range sets {
		var cols []report.Key
		for _, scorer := range []string{report.PrivacyScorer, report.MechanismScorer} {
			for _, m := range s.Metrics(set, scorer) {
				cols = append(cols, report.Key{Set: set, Scorer: scorer, Metric: m})
			}
		}
		if len(only) > 0 {
			var picked []report.Key
			for _, m := range withCompanions(only) {
				for _, c := range cols {
					if c.Metric == m {
						picked = append(picked, c)
					}
				}
			}
			cols = picked
		}
		p.columns = append(p.columns, cols...)
	}
	p.rows = tableRows(s, isPrivacy)
	for _, r := range p.rows {
		var line []entry
		for _, col := range p.columns {
			e := entry{Table: "privacy", Set: col.Set, Mechanism: r.Mechanism, Epsilon: r.Epsilon,
				Label: metricLabel(col.Metric), Scorer: col.Scorer, Metric: col.Metric,
				Mean: math.NaN(), SD: math.NaN(), Low: math.NaN(), High: math.NaN()}
			if c, ok := s.Cell(report.Key{Set: col.Set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: col.Scorer, Metric: col.Metric}); ok {
				e.Present, e.N, e.Mean, e.SD = true, c.N(), c.Mean, c.SD
				if c.N() > 1 {
					e.Interval, e.Low, e.High = "t", c.Mean-c.HalfWidth, c.Mean+c.HalfWidth
				}
			}
			line = append(line, e)
		}
		p.cells = append(p.cells, line)
	}
	return p
}

// companions are metrics shown right after another whenever it is selected: the finite-pairs
// mean of the log multiplier is not to be read without the share of pairs it leaves out.
var companions = map[string]string{"log_multiplier_mean": "log_multiplier_infinite_share"}

// withCompanions returns only with each metric's companion inserted after it (unless listed).
func withCompanions(only []string) []string {
	listed := map[string]bool{}
	for _, m := range only {
		listed[m] = true
	}
	var out []string
	for _, m := range only {
		out = append(out, m)
		if c, ok := companions[m]; ok && !listed[c] {
			out = append(out, c)
		}
	}
	return out
}

// metricLabel is a short heading for the privacy and diagnostic metrics of results.csv.
func metricLabel(metric string) string {
	labels := map[string]string{
		"epsilon_doc":                   "ε_doc",
		"emd_mean":                      "E",
		"log_multiplier_mean":           "ε·D (finite pairs)",
		"log_multiplier_infinite_share": "pairs ε·D = ∞",
		"audited_eps_lcb":               "audited ε (LCB)",
		"audited_eps_ceiling":           "audit ceiling",
		"eps_n":                         "ε·n",
		"eps_ln_eta_n":                  "(ε+ln η)·n",
		"ell_n":                         "ℓ·n",
		"unchanged_share":               "unchanged",
		"oov_tokens":                    "OOV tokens",
		"oov_kept":                      "OOV kept",
		"oov_dropped":                   "OOV dropped",
		"oov_replaced":                  "OOV replaced",
		"mean_cosine":                   "mean cos",
		"original_mass":                 "Pr[original]",
		"top5_similarity":               "top-5 cos",
		"top5_similarity_centered":      "top-5 cos (centred)",
		"released_top5_share":           "released in top 5",
	}
	if l, ok := labels[metric]; ok {
		return l
	}
	return metric
}

// formatValue prints a mean: without decimals when whole, else with decimals(metric, v).
func formatValue(metric string, v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.IsInf(v, 1):
		return "∞"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', decimals(metric, v), 64)
}

// decimals is the number of decimals printed for values of metric near mean: one for counts and
// values of at least 100, else three.
func decimals(metric string, mean float64) int {
	if metric == report.MetricCorrect || metric == report.MetricTotal || math.Abs(mean) >= 100 {
		return 1
	}
	return 3
}

// formatEntry prints "mean ± half-width" (t), "mean [low, high]" (Wilson) or the mean alone, then
// the reference in parentheses.
func formatEntry(e entry) string {
	var b strings.Builder
	if e.Present {
		b.WriteString(formatValue(e.Metric, e.Mean))
		switch e.Interval {
		case "t":
			fmt.Fprintf(&b, " ± %s", strconv.FormatFloat((e.High-e.Low)/2, 'f', decimals(e.Metric, e.Mean), 64))
		case "wilson":
			d := decimals(e.Metric, e.Mean)
			fmt.Fprintf(&b, " [%s, %s]", strconv.FormatFloat(e.Low, 'f', d, 64), strconv.FormatFloat(e.High, 'f', d, 64))
		}
	} else {
		b.WriteString("–")
	}
	if e.HasReference {
		fmt.Fprintf(&b, " (%s)", strconv.FormatFloat(e.Reference, 'g', -1, 64))
	}
	if e.AtChance {
		b.WriteString(" " + ChanceMark)
	}
	return b.String()
}

// epsilonText is the ε column of a row: "–" when the mechanism has none.
func epsilonText(eps report.Epsilon) string {
	if !eps.Set() {
		return "–"
	}
	return eps.String()
}
