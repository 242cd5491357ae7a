package render

import (
	"dptext/experiments/report"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Layout says what the tables and plots of a run show. The lead embeds it in a run's config as
// the `[report]` table; start from DefaultLayout and let the decoder overwrite what is given.
type Layout struct {
	// Metric is the metric the main table shows (default "correct").
	Metric string `toml:"metric"`
	// Interval is the interval printed beside each mean: "t" (default), the Student t interval
	// of the mean over repeats, or "wilson", the Wilson score interval of the proportion pooled
	// over repeats (only for metric "correct" or "accuracy", which need `total` rows).
	Interval string `toml:"interval"`
	// Level is the confidence level of every interval (default 0.95).
	Level float64 `toml:"level"`
	// Columns are the main table's columns per set, in order.
	Columns []Column `toml:"columns"`
	// References are published numbers printed in parentheses beside the run's.
	References []Reference `toml:"references"`
	// PlotMetrics are the metrics plotted against ε, one plot per set and metric
	// (default ["accuracy"]; empty for none).
	PlotMetrics []string `toml:"plot_metrics"`
	// PrivacyMetrics selects, in order, the privacy and mechanism-diagnostic metrics of the
	// second table (e.g. ["epsilon_doc", "log_multiplier_mean", "unchanged_share"]); empty: all.
	PrivacyMetrics []string `toml:"privacy_metrics"`
	// Frontier names the axes of the privacy–utility frontier plot (none when Attack is empty).
	Frontier Frontier `toml:"frontier"`
	// Utilities are the utility scorers of the frontier on the empirical axis (the run sets
	// them from [verdict] utilities; empty: Frontier.Utility). Not a key of [report].
	Utilities []string `toml:"-"`
}

// Column is one column of the main table.
type Column struct {
	// Scorer is the attacker or classifier name as in results.csv, e.g. "sr-nn".
	Scorer string `toml:"scorer"`
	// Label is the column heading, e.g. "SRauth".
	Label string `toml:"label"`
	// Task is "author" (chance 1/authors), "topic" (chance 1/topics) or "utility" (no chance level).
	Task string `toml:"task"`
	// Metric overrides Layout.Metric for this column (e.g. "mean" for a cosine utility scorer).
	Metric string `toml:"metric"`
}

// Reference holds published numbers of one column of one set.
type Reference struct {
	// Set is the set name as in results.csv.
	Set string `toml:"set"`
	// Label is the column label the numbers belong to.
	Label string `toml:"label"`
	// Mechanism restricts the numbers keyed by ε to that mechanism's rows (default: any).
	Mechanism string `toml:"mechanism"`
	// Authors is the number of authors of the published set. A number is printed beside ours
	// only in sets with as many authors (counts out of other denominators do not compare);
	// required when the column shows counts (metric "correct"), 0 (not given) otherwise.
	Authors int `toml:"authors"`
	// Values maps a row to its number: keys are ε values as text ("30", "12.5" — quote keys with
	// a dot in TOML) or the names of mechanisms without ε ("none").
	Values map[string]float64 `toml:"values"`
}

// Frontier names the two axes of the privacy–utility frontier plot.
type Frontier struct {
	// Attack is the authorship attacker on the y axis (e.g. "koppel11"); empty: no frontier plot.
	Attack string `toml:"attack"`
	// AttackMetric is its metric (default "accuracy").
	AttackMetric string `toml:"attack_metric"`
	// Utility is the topic classifier or utility scorer on the x axis (e.g. "fasttext").
	Utility string `toml:"utility"`
	// UtilityMetric is its metric (default "accuracy").
	UtilityMetric string `toml:"utility_metric"`
}

// DefaultLayout is Table 1 of Fernandes, Dras and McIver (2018): correct counts of the
// same-representation (SR) and different-representation (DR) author attackers and topic
// classifiers, 95 % t intervals, accuracy plotted against ε, no references and no frontier.
func DefaultLayout() Layout {
	return Layout{
		Metric:   report.MetricCorrect,
		Interval: "t",
		Level:    0.95,
		Columns: []Column{
			{Scorer: "sr-nn", Label: "SRauth", Task: report.TaskAuthor},
			{Scorer: "sr-knn-topic", Label: "SRtopic", Task: report.TaskTopic},
			{Scorer: "koppel11", Label: "DRauth", Task: report.TaskAuthor},
			{Scorer: "fasttext", Label: "DRtopic", Task: report.TaskTopic},
		},
		PlotMetrics: []string{report.MetricAccuracy},
		Frontier:    Frontier{AttackMetric: report.MetricAccuracy, UtilityMetric: report.MetricAccuracy},
	}
}

// Validate checks the layout on its own; errors name the key under [report] and what is valid.
func (l Layout) Validate() error {
	if l.Metric == "" {
		return fmt.Errorf(`report: metric = "": want a metric name such as "correct" or "accuracy"`)
	}
	switch l.Interval {
	case "t":
	case "wilson":
		if l.Metric != report.MetricCorrect && l.Metric != report.MetricAccuracy {
			return fmt.Errorf(`report: interval = "wilson" needs metric "correct" or "accuracy", not %q`, l.Metric)
		}
	default:
		return fmt.Errorf(`report: interval = %q: want "t" or "wilson"`, l.Interval)
	}
	if !(l.Level > 0 && l.Level < 1) {
		return fmt.Errorf("report: level = %v: want a confidence level strictly between 0 and 1, e.g. 0.95", l.Level)
	}
	if len(l.Columns) == 0 {
		return fmt.Errorf("report: columns is empty: want at least one {scorer, label, task}")
	}
	scorers, labels := map[string]bool{}, map[string]bool{}
	for i, c := range l.Columns {
		key := fmt.Sprintf("report: columns[%d]", i)
		switch {
		case c.Scorer == "":
			return fmt.Errorf("%s.scorer is empty: want a scorer name as in results.csv", key)
		case scorers[c.Scorer+"\x00"+l.metric(c)]:
			return fmt.Errorf("%s: scorer %q with metric %q appears twice", key, c.Scorer, l.metric(c))
		case c.Label == "":
			return fmt.Errorf("%s.label is empty: want a column heading such as \"SRauth\"", key)
		case labels[c.Label]:
			return fmt.Errorf("%s.label = %q appears twice", key, c.Label)
		case c.Task != report.TaskAuthor && c.Task != report.TaskTopic && c.Task != report.TaskUtility:
			return fmt.Errorf("%s.task = %q: want %q, %q or %q", key, c.Task, report.TaskAuthor, report.TaskTopic, report.TaskUtility)
		case l.Interval == "wilson" && c.Metric != "" && c.Metric != l.Metric:
			return fmt.Errorf(`%s.metric = %q: interval = "wilson" needs every column to show %q`, key, c.Metric, l.Metric)
		}
		scorers[c.Scorer+"\x00"+l.metric(c)], labels[c.Label] = true, true
	}
	for i, r := range l.References {
		key := fmt.Sprintf("report: references[%d]", i)
		if r.Set == "" {
			return fmt.Errorf("%s.set is empty: want a set name as in results.csv", key)
		}
		if !labels[r.Label] {
			return fmt.Errorf("%s.label = %q: want one of the column labels %s", key, r.Label, quoteAll(l.labels()))
		}
		switch col := l.column(r.Label); {
		case r.Authors < 0:
			return fmt.Errorf("%s.authors = %d: want the number of authors of the published set (≥ 1)", key, r.Authors)
		case r.Authors == 0 && l.metric(col) == report.MetricCorrect:
			return fmt.Errorf("%s.authors is not given, but column %q shows counts (metric %q): give the number of authors of the published set, so that its counts are printed only beside a set of as many authors", key, r.Label, report.MetricCorrect)
		}
		for k, v := range r.Values {
			if k == "" {
				return fmt.Errorf("%s.values has an empty key: want an ε such as \"30\" or a mechanism name such as \"none\"", key)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s.values.%s = %v: want a finite number", key, k, v)
			}
		}
	}
	for i, m := range l.PlotMetrics {
		if m == "" || slices.Index(l.PlotMetrics, m) != i {
			return fmt.Errorf("report: plot_metrics[%d] = %q: want distinct, non-empty metric names", i, m)
		}
	}
	f := l.Frontier
	switch {
	case f.Attack == "" && f.Utility != "":
		return fmt.Errorf("report: frontier.attack is empty but frontier.utility = %q: give both or neither", f.Utility)
	case f.Attack != "" && f.Utility == "":
		return fmt.Errorf("report: frontier.utility is empty but frontier.attack = %q: give both or neither", f.Attack)
	case f.Attack != "" && (f.AttackMetric == "" || f.UtilityMetric == ""):
		return fmt.Errorf(`report: frontier.attack_metric and frontier.utility_metric must name metrics, e.g. "accuracy"`)
	}
	return nil
}

// checkData checks the layout against a run's cells: every named scorer and reference set must
// occur in the results.
func (l Layout) checkData(s *report.Summary) error {
	scorers, sets := map[string]bool{}, map[string]bool{}
	for _, c := range s.Cells {
		scorers[c.Scorer], sets[c.Set] = true, true
	}
	names := func(m map[string]bool) string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return quoteAll(out)
	}
	for i, c := range l.Columns {
		if !scorers[c.Scorer] {
			return fmt.Errorf("report: columns[%d].scorer = %q: no results for it; scorers in the results: %s", i, c.Scorer, names(scorers))
		}
	}
	for i, r := range l.References {
		if !sets[r.Set] {
			return fmt.Errorf("report: references[%d].set = %q: no results for it; sets in the results: %s", i, r.Set, names(sets))
		}
	}
	if f := l.Frontier; f.Attack != "" {
		if !scorers[f.Attack] {
			return fmt.Errorf("report: frontier.attack = %q: no results for it; scorers in the results: %s", f.Attack, names(scorers))
		}
		if !scorers[f.Utility] {
			return fmt.Errorf("report: frontier.utility = %q: no results for it; scorers in the results: %s", f.Utility, names(scorers))
		}
	}
	return nil
}

// metric is the metric column c shows.
func (l Layout) metric(c Column) string {
	if c.Metric != "" {
		return c.Metric
	}
	return l.Metric
}

func (l Layout) labels() []string {
	out := make([]string, len(l.Columns))
	for i, c := range l.Columns {
		out[i] = c.Label
	}
	return out
}

// scorerOrder lists the column scorers (each once), which lead the report's scorer order.
func (l Layout) scorerOrder() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range l.Columns {
		if !seen[c.Scorer] {
			seen[c.Scorer] = true
			out = append(out, c.Scorer)
		}
	}
	return out
}

// label is the column label of scorer, or the scorer's own name.
func (l Layout) label(scorer string) string {
	for _, c := range l.Columns {
		if c.Scorer == scorer {
			return c.Label
		}
	}
	return scorer
}

// task is the column task of scorer, or "" when it is no column.
func (l Layout) task(scorer string) string {
	for _, c := range l.Columns {
		if c.Scorer == scorer {
			return c.Task
		}
	}
	return ""
}

// column returns the column with the given label (zero if none).
func (l Layout) column(label string) Column {
	for _, c := range l.Columns {
		if c.Label == label {
			return c
		}
	}
	return Column{}
}

// reference returns the published number for column label of set at (mechanism, ε); authors
// is the set's number of authors (NaN if unknown): a reference of another set size is not
// returned.
func (l Layout) reference(set, label, mechanism string, eps report.Epsilon, authors float64) (float64, bool) {
	for _, r := range l.References {
		if r.Set != set || r.Label != label || (r.Authors > 0 && float64(r.Authors) != authors) {
			continue
		}
		for k, v := range r.Values {
			if !eps.Set() {
				if k == mechanism {
					return v, true
				}
				continue
			}
			if r.Mechanism != "" && r.Mechanism != mechanism {
				continue
			}
			if e, err := strconv.ParseFloat(k, 64); err == nil && e == eps.Value() {
				return v, true
			}
		}
	}
	return 0, false
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
