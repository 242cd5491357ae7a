package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"dptext/internal/stats"
)

// Key names one cell of a run: the values of one metric of one scorer for one (set, mechanism, ε),
// over all repeats. Epsilon is absent for mechanisms without ε.
type Key struct {
	Set, Mechanism string
	Epsilon        Epsilon
	Scorer, Metric string
}

// String writes the key as "set/mechanism/ε/scorer/metric", ε empty when absent.
func (k Key) String() string {
	return fmt.Sprintf("%s/%s/%s/%s/%s", k.Set, k.Mechanism, k.Epsilon, k.Scorer, k.Metric)
}

// id is the form of Key that indexes cells: ε as its text, so that two ε that print alike
// are one cell.
type id struct{ set, mechanism, epsilon, scorer, metric string }

func (k Key) id() id { return id{k.Set, k.Mechanism, k.Epsilon.String(), k.Scorer, k.Metric} }

// Cell summarises one Key over repeats: the values in repeat order, their mean, sample standard
// deviation (NaN for one repeat) and the half-width of the Student t interval of the mean over
// repeats at Summary.Level (NaN for one repeat).
type Cell struct {
	Key
	Repeats   []int
	Values    []float64
	Mean, SD  float64
	HalfWidth float64
}

// N is the number of repeats.
func (c Cell) N() int { return len(c.Values) }

// Pooled is a binomial proportion pooled over repeats, Correct of Total predictions (sums over
// repeats of the `correct` and `total` metrics), with its Wilson score interval [Low, High].
type Pooled struct {
	Correct, Total float64
	Low, High      float64
}

// Summary holds the cells of a run in the report's order (see Aggregate).
type Summary struct {
	Cells []Cell
	// Level is the confidence level of every interval, e.g. 0.95.
	Level float64
	index map[id]int
}

// Aggregate groups rows by (set, mechanism, ε, scorer, metric) and summarises each group over its
// repeats. Cells are ordered by set (first appearance), mechanism (the set-fact mechanism "" first,
// then "none", then first appearance), ε (absent first, then descending: none, 30, 25, …, 10),
// scorer (scorerOrder first, as given, then first appearance) and metric (first appearance).
// Two rows with the same key and repeat are an error.
func Aggregate(rows []Row, scorerOrder []string, level float64) (*Summary, error) {
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("report: confidence level %v: want a number strictly between 0 and 1", level)
	}
	sets, mechanisms, scorers, metrics := rank{}, rank{}, rank{}, rank{}
	mechanisms.add("")
	mechanisms.add("none")
	for _, s := range scorerOrder {
		scorers.add(s)
	}
	s := &Summary{Level: level, index: map[id]int{}}
	seen := map[id]map[int]bool{}
	for _, r := range rows {
		k := Key{r.Set, r.Mechanism, r.Epsilon, r.Scorer, r.Metric}
		sets.add(r.Set)
		mechanisms.add(r.Mechanism)
		scorers.add(r.Scorer)
		metrics.add(r.Metric)
		i, ok := s.index[k.id()]
		if !ok {
			i = len(s.Cells)
			s.index[k.id()] = i
			s.Cells = append(s.Cells, Cell{Key: k})
			seen[k.id()] = map[int]bool{}
		}
		if seen[k.id()][r.Repeat] {
			return nil, fmt.Errorf("report: two rows for %s repeat %d", k, r.Repeat)
		}
		seen[k.id()][r.Repeat] = true
		s.Cells[i].Repeats = append(s.Cells[i].Repeats, r.Repeat)
		s.Cells[i].Values = append(s.Cells[i].Values, r.Value)
	}
	for i := range s.Cells {
		c := &s.Cells[i]
		sortByRepeat(c)
		c.Mean, c.SD = stats.MeanSD(c.Values)
		c.HalfWidth = stats.THalfWidth(c.SD, c.N(), level)
	}
	slices.SortStableFunc(s.Cells, func(a, b Cell) int {
		return cmp.Or(
			cmp.Compare(sets[a.Set], sets[b.Set]),
			cmp.Compare(mechanisms[a.Mechanism], mechanisms[b.Mechanism]),
			a.Epsilon.Compare(b.Epsilon),
			cmp.Compare(scorers[a.Scorer], scorers[b.Scorer]),
			cmp.Compare(metrics[a.Metric], metrics[b.Metric]))
	})
	for i, c := range s.Cells {
		s.index[c.id()] = i
	}
	return s, nil
}

// rank maps a name to its position of first insertion.
type rank map[string]int

func (r rank) add(name string) {
	if _, ok := r[name]; !ok {
		r[name] = len(r)
	}
}

func sortByRepeat(c *Cell) {
	order := make([]int, len(c.Repeats))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(c.Repeats[i], c.Repeats[j]) })
	repeats, values := make([]int, len(order)), make([]float64, len(order))
	for to, from := range order {
		repeats[to], values[to] = c.Repeats[from], c.Values[from]
	}
	c.Repeats, c.Values = repeats, values
}

// Cell returns the cell of k, if the run has one.
func (s *Summary) Cell(k Key) (Cell, bool) {
	i, ok := s.index[k.id()]
	if !ok {
		return Cell{}, false
	}
	return s.Cells[i], true
}

// Pooled returns the counts `correct` and `total` of (set, mechanism, ε, scorer) summed over the
// repeats both metrics share, with the Wilson interval of the proportion; ok is false when either
// metric is missing or no repeat has both.
func (s *Summary) Pooled(k Key) (Pooled, bool) {
	k.Metric = MetricCorrect
	correct, ok1 := s.Cell(k)
	k.Metric = "total"
	total, ok2 := s.Cell(k)
	if !ok1 || !ok2 {
		return Pooled{}, false
	}
	var p Pooled
	totals := map[int]float64{}
	for i, r := range total.Repeats {
		totals[r] = total.Values[i]
	}
	for i, r := range correct.Repeats {
		if t, ok := totals[r]; ok {
			p.Correct += correct.Values[i]
			p.Total += t
		}
	}
	if p.Total == 0 {
		return Pooled{}, false
	}
	p.Low, p.High = stats.Wilson(p.Correct, p.Total, s.Level)
	return p, true
}

// Sets lists the sets in report order.
func (s *Summary) Sets() []string {
	return s.distinct(func(c Cell) string { return c.Set }, func(Cell) bool { return true })
}

// Metrics lists the metrics that scorer reports in set, in report order.
func (s *Summary) Metrics(set, scorer string) []string {
	return s.distinct(func(c Cell) string { return c.Metric },
		func(c Cell) bool { return c.Set == set && c.Scorer == scorer })
}

// Scorers lists the scorers of set, in report order (set facts, privacy and mechanism rows included).
func (s *Summary) Scorers(set string) []string {
	return s.distinct(func(c Cell) string { return c.Scorer }, func(c Cell) bool { return c.Set == set })
}

func (s *Summary) distinct(field func(Cell) string, keep func(Cell) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range s.Cells {
		if v := field(c); keep(c) && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Fact returns a set fact (a `split` row, e.g. "authors" or "n_words"): its mean over repeats.
func (s *Summary) Fact(set, metric string) (float64, bool) {
	c, ok := s.Cell(Key{Set: set, Scorer: SplitScorer, Metric: metric})
	if !ok {
		return math.NaN(), false
	}
	return c.Mean, true
}

// MaxRepeats is the largest number of repeats of any cell that is not a set fact.
func (s *Summary) MaxRepeats() int {
	n := 0
	for _, c := range s.Cells {
		if c.Mechanism != "" {
			n = max(n, c.N())
		}
	}
	return n
}

// Scorer names of the rows that are not classifier scores (see results.csv conventions).
const (
	SplitScorer     = "split"
	PrivacyScorer   = "privacy"
	MechanismScorer = "mechanism"
)
