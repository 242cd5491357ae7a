// Package compare checks a run against a baseline run: per cell, whether the results moved
// beyond repeat noise (Fisher's exact test on pooled counts, else Welch's t-test, with a
// family-wise Holm or Bonferroni correction), after refusing values no run writes.
package compare

import (
	"cmp"
	"dptext/experiments/report"
	"fmt"
	"math"
	"slices"
	"strings"

	"dptext/internal/stats"
)

// Options control the regression check of a run against a baseline.
type Options struct {
	// Alpha is the family-wise false-alarm rate over all tested cells (default 0.01): with
	// unchanged code and only repeat noise, the chance that any cell is flagged is at most Alpha.
	Alpha float64 `toml:"alpha"`
	// Correction is the multiple-test correction: "holm" (default; step-down, never weaker) or
	// "bonferroni".
	Correction string `toml:"correction"`
	// Tolerance is the relative difference under which two means count as equal (default 1e-9),
	// so floating-point reordering does not flag cells without spread.
	Tolerance float64 `toml:"tolerance"`
	// ProtocolMetrics are the `split` metrics whose change means a different protocol: a hard
	// failure, not a test (default authors, topics, n_words, eval_docs, topic_train_docs).
	ProtocolMetrics []string `toml:"protocol_metrics"`
}

// DefaultOptions: α = 0.01 family-wise with Holm's correction.
func DefaultOptions() Options {
	return Options{Alpha: 0.01, Correction: "holm", Tolerance: 1e-9,
		ProtocolMetrics: []string{"authors", "topics", "n_words", "eval_docs", "topic_train_docs"}}
}

// Validate checks the options; errors name the key and what is valid.
func (o Options) Validate() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("compare: alpha = %v: want a family-wise error rate strictly between 0 and 1, e.g. 0.01", o.Alpha)
	case o.Correction != "holm" && o.Correction != "bonferroni":
		return fmt.Errorf(`compare: correction = %q: want "holm" or "bonferroni"`, o.Correction)
	case !(o.Tolerance >= 0 && o.Tolerance < 1):
		return fmt.Errorf("compare: tolerance = %v: want a relative tolerance in [0, 1), e.g. 1e-9", o.Tolerance)
	}
	return nil
}

// Methods of a Change: how its cell was compared.
const (
	// MethodFisher is Fisher's exact test on the counts correct/total pooled over repeats.
	MethodFisher = "fisher"
	// MethodWelch is Welch's t-test of the means over repeats.
	MethodWelch = "welch"
	// MethodExact compares cells without spread (one repeat, or equal values in every repeat):
	// p = 1 when the means agree within the tolerance, else 0.
	MethodExact = "exact"
	// MethodProtocol marks a changed set fact or evaluation size: a hard failure.
	MethodProtocol = "protocol"
	// MethodAudit marks an audit ([audit]) that passed in the baseline (no violation in any
	// repeat) and fails in the run: a hard failure.
	MethodAudit = "audit"
)

// Change is the comparison of one cell between baseline and run.
type Change struct {
	Key             report.Key
	Method          string
	Baseline, Run   float64 // means over repeats
	BaselineN, RunN int     // repeats
	P, AdjustedP    float64 // raw and corrected p-values
	Moved           bool    // AdjustedP ≤ α, or a protocol change
}

// Verdict is the outcome of Runs.
type Verdict struct {
	Alpha      float64
	Correction string
	// Tested lists every statistically compared cell, in report order.
	Tested []Change
	// Protocol lists changed set facts and evaluation sizes (hard failures).
	Protocol []Change
	// Audits lists the audits that passed in the baseline and fail in the run (hard failures).
	Audits []Change
	// OnlyInBaseline and OnlyInRun are the cells the other side lacks.
	OnlyInBaseline, OnlyInRun []report.Key
	// RepeatsOnlyInBaseline and RepeatsOnlyInRun are the repeats of cells present on both
	// sides that the other side lacks (a lost cell file of one repeat).
	RepeatsOnlyInBaseline, RepeatsOnlyInRun []KeyRepeat
}

// KeyRepeat is one repeat of a cell.
type KeyRepeat struct {
	Key    report.Key
	Repeat int
}

// String writes the cell key and the repeat.
func (k KeyRepeat) String() string { return fmt.Sprintf("%s repeat %d", k.Key, k.Repeat) }

// Moved lists the tested cells that moved beyond tolerance.
func (v Verdict) Moved() []Change {
	var out []Change
	for _, c := range v.Tested {
		if c.Moved {
			out = append(out, c)
		}
	}
	return out
}

// OK reports whether the run matches the baseline: no moved cell, no protocol change, no audit
// that passed in the baseline failing in the run, and the same set of cells.
func (v Verdict) OK() bool {
	return len(v.Moved()) == 0 && len(v.Protocol) == 0 && len(v.Audits) == 0 && len(v.OnlyInBaseline) == 0 && len(v.OnlyInRun) == 0 &&
		len(v.RepeatsOnlyInBaseline) == 0 && len(v.RepeatsOnlyInRun) == 0
}

// String prints a summary line, then one line per protocol change, moved cell and missing cell.
func (v Verdict) String() string {
	var b strings.Builder
	status := "OK"
	if !v.OK() {
		status = "FAIL"
	}
	moved := v.Moved()
	fmt.Fprintf(&b, "%s: %d cells tested at family-wise α = %g (%s); %d moved, %d protocol changes, %d audits failing, %d only in baseline, %d only in run, %d repeats missing\n",
		status, len(v.Tested), v.Alpha, v.Correction, len(moved), len(v.Protocol), len(v.Audits), len(v.OnlyInBaseline), len(v.OnlyInRun),
		len(v.RepeatsOnlyInBaseline)+len(v.RepeatsOnlyInRun))
	for _, c := range v.Protocol {
		fmt.Fprintf(&b, "protocol  %s: baseline %s, run %s\n", c.Key, fmtG(c.Baseline), fmtG(c.Run))
	}
	for _, c := range v.Audits {
		fmt.Fprintf(&b, "audit     %s: passed in the baseline, fails in the run (%s violations per repeat, mean)\n", c.Key, fmtG(c.Run))
	}
	for _, c := range moved {
		fmt.Fprintf(&b, "moved     %s: baseline %s (n=%d), run %s (n=%d), %s p=%.3g, adjusted p=%.3g\n",
			c.Key, fmtG(c.Baseline), c.BaselineN, fmtG(c.Run), c.RunN, c.Method, c.P, c.AdjustedP)
	}
	for _, k := range v.OnlyInBaseline {
		fmt.Fprintf(&b, "missing   %s: only in baseline\n", k)
	}
	for _, k := range v.OnlyInRun {
		fmt.Fprintf(&b, "new       %s: only in run\n", k)
	}
	for _, k := range v.RepeatsOnlyInBaseline {
		fmt.Fprintf(&b, "missing   %s: only in baseline\n", k)
	}
	for _, k := range v.RepeatsOnlyInRun {
		fmt.Fprintf(&b, "new       %s: only in run\n", k)
	}
	return b.String()
}

func fmtG(v float64) string { return fmt.Sprintf("%.4g", v) }

// Runs decides per cell whether run moved away from baseline beyond repeat noise.
// Cells with `correct` and `total` counts are tested with Fisher's exact test on the counts
// pooled over repeats (their `accuracy` is checked to be correct/total in every repeat, on both
// sides, so the same test covers it and it is not tested twice); this treats
// every prediction as an independent trial, which overstates the noise when both runs score the
// same documents, so it errs towards not flagging. Other metrics are tested with Welch's t-test
// over repeats, and cells without spread must agree within the tolerance. The p-values are
// corrected over all tested cells (Holm or Bonferroni) so the family-wise false-alarm rate is
// Alpha. Counts of words (unchanged_words of share_words) are tested paired by repeat (see
// pairedBinomialP) and cover their share; derived rows (relative_*, gains) are not tested
// again. An audit that passed in the baseline (audit_violations 0 in every repeat) and fails
// in the run is a hard failure. Changed `split` protocol metrics and changed `total` and
// `share_words` counts are hard failures, and cells
// present on one side only are listed. Rows without a cell to test on either side (header-only
// files) are an error: a comparison that tests nothing passes nothing.
func Runs(baseline, run []report.Row, opts Options) (Verdict, error) {
	return RunsWithItems(baseline, run, nil, nil, opts)
}

// RunsWithItems is Runs with the per-item scores of both sides (predictions.csv): a utility
// measure's `mean` cell whose items both sides scored is tested paired, by the exact sign test
// of the per-item differences (pairedItemsP), instead of Welch's test over repeats. A
// classifier's `correct` stays with Fisher's test of the pooled counts: when a mechanism moves
// items both ways (a random release turns some wrong answers right), the net count is the
// stronger evidence (measured: TestCompareFlagsABrokenMechanism, package runner, fails with
// McNemar's test in its place).
func RunsWithItems(baseline, run []report.Row, baseItems, runItems []Item, opts Options) (Verdict, error) {
	if err := opts.Validate(); err != nil {
		return Verdict{}, err
	}
	if err := checkValues(baseline, "baseline"); err != nil {
		return Verdict{}, err
	}
	if err := checkValues(run, "run"); err != nil {
		return Verdict{}, err
	}
	v := Verdict{Alpha: opts.Alpha, Correction: opts.Correction}
	// The level only sets intervals, which Runs does not use.
	base, err := report.Aggregate(baseline, nil, 0.95)
	if err != nil {
		return Verdict{}, fmt.Errorf("compare: baseline: %w", err)
	}
	cur, err := report.Aggregate(run, nil, 0.95)
	if err != nil {
		return Verdict{}, fmt.Errorf("compare: run: %w", err)
	}
	bItems, rItems := itemIndex(baseItems), itemIndex(runItems)
	v.RepeatsOnlyInBaseline, v.RepeatsOnlyInRun = missingRepeats(baseline, run)
	for _, b := range base.Cells {
		if _, ok := cur.Cell(b.Key); !ok {
			v.OnlyInBaseline = append(v.OnlyInBaseline, b.Key)
		}
	}
	for _, r := range cur.Cells {
		b, ok := base.Cell(r.Key)
		if !ok {
			v.OnlyInRun = append(v.OnlyInRun, r.Key)
			continue
		}
		c := Change{Key: r.Key, Baseline: b.Mean, Run: r.Mean, BaselineN: b.N(), RunN: r.N()}
		bp, bPooled := base.Pooled(r.Key)
		rp, rPooled := cur.Pooled(r.Key)
		pooled := bPooled && rPooled
		var pairedP float64
		paired := false
		if r.Metric == report.MetricMean {
			pairedP, _, _, paired = pairedItemsP(bItems[r.Key.String()], rItems[r.Key.String()])
		}
		switch {
		case r.Scorer == report.SplitScorer && slices.Contains(opts.ProtocolMetrics, r.Metric),
			r.Metric == "total":
			if !opts.equal(b.Mean, r.Mean) {
				c.Method, c.P, c.AdjustedP, c.Moved = MethodProtocol, 0, 0, true
				v.Protocol = append(v.Protocol, c)
			}
			continue
		case r.Metric == report.MetricAuditViolations:
			if slices.Max(b.Values) == 0 && slices.Max(r.Values) > 0 {
				c.Method, c.P, c.AdjustedP, c.Moved = MethodAudit, 0, 0, true
				v.Audits = append(v.Audits, c)
			}
			continue
		case r.Metric == report.MetricShareWords:
			if !opts.equal(b.Mean, r.Mean) {
				c.Method, c.P, c.AdjustedP, c.Moved = MethodProtocol, 0, 0, true
				v.Protocol = append(v.Protocol, c)
			}
			continue
		case r.Metric == report.MetricAccuracy && pooled, hasCounts(base, cur, r.Key), derived(r.Metric):
			continue
		case countOf[r.Metric] != "":
			kb, kr, n, ok := countRepeats(base, cur, r.Key)
			if !ok {
				continue // the denominators differ: a protocol change, listed above
			}
			c.Method, c.P = MethodPairedBinomial, pairedBinomialP(kb, kr, n)
		case paired:
			c.Method, c.P = MethodPairedItems, pairedP
		case r.Metric == report.MetricCorrect && pooled:
			c.Method = MethodFisher
			c.P = stats.FisherExact(int(math.Round(bp.Correct)), int(math.Round(bp.Total-bp.Correct)),
				int(math.Round(rp.Correct)), int(math.Round(rp.Total-rp.Correct)))
		case math.IsInf(b.Mean, 0) || math.IsInf(r.Mean, 0):
			// An infinite value (an exact audit's ceiling) agrees only with itself.
			c.Method, c.P = MethodExact, 0
			if slices.Equal(b.Values, r.Values) {
				c.P = 1
			}
		case opts.equal(b.Mean, r.Mean) && (b.N() < 2 || r.N() < 2 || b.SD == 0 && r.SD == 0):
			c.Method, c.P = MethodExact, 1
		case b.N() < 2 || r.N() < 2 || b.SD == 0 && r.SD == 0:
			c.Method, c.P = MethodExact, 0
		default:
			c.Method, c.P = MethodWelch, stats.Welch(b.Mean, b.SD, b.N(), r.Mean, r.SD, r.N())
		}
		v.Tested = append(v.Tested, c)
	}
	if len(v.Tested) == 0 && v.OK() {
		return Verdict{}, fmt.Errorf("compare: no cell to test (the baseline has %d rows, the run %d): a comparison that tests nothing cannot pass — is a results.csv empty or only a header?", len(baseline), len(run))
	}
	adjust(v.Tested, opts.Correction)
	for i := range v.Tested {
		v.Tested[i].Moved = v.Tested[i].AdjustedP <= opts.Alpha
	}
	return v, nil
}

// derived reports whether metric is not tested on its own: the relative_* rows (private / the
// none row) and the gains (differences of two scorers' macro F1) are functions of rows that
// are tested, so testing them again would only spend the family-wise α; the audit's lower
// bound stands for its verdict (auditedLowerBound).
func derived(metric string) bool {
	return strings.HasPrefix(metric, "relative_") || metric == report.MetricDeltaF1 || metric == report.MetricDeltaRelativeF1 ||
		metric == auditedLowerBound
}

// auditedLowerBound is the audit's ε lower confidence bound: one random draw per mechanism and
// ε, the same in every repeat, so there is no spread to test it against (a redraw with the
// same law would move it); the audit's verdict, audit_violations, is compared instead.
const auditedLowerBound = "audited_eps_lcb"

// missingRepeats lists, for cells present on both sides, the repeats only one side has, in
// the order of the rows.
func missingRepeats(baseline, run []report.Row) (onlyBase, onlyRun []KeyRepeat) {
	type keyString = string
	repeats := func(rows []report.Row) (map[keyString]map[int]bool, []KeyRepeat) {
		m := map[keyString]map[int]bool{}
		var order []KeyRepeat
		for _, r := range rows {
			k := report.Key{Set: r.Set, Mechanism: r.Mechanism, Epsilon: r.Epsilon, Scorer: r.Scorer, Metric: r.Metric}
			ks := k.String()
			if m[ks] == nil {
				m[ks] = map[int]bool{}
			}
			if !m[ks][r.Repeat] {
				m[ks][r.Repeat] = true
				order = append(order, KeyRepeat{k, r.Repeat})
			}
		}
		return m, order
	}
	bm, border := repeats(baseline)
	rm, rorder := repeats(run)
	for _, kr := range border {
		if reps, ok := rm[kr.Key.String()]; ok && !reps[kr.Repeat] {
			onlyBase = append(onlyBase, kr)
		}
	}
	for _, kr := range rorder {
		if reps, ok := bm[kr.Key.String()]; ok && !reps[kr.Repeat] {
			onlyRun = append(onlyRun, kr)
		}
	}
	return onlyBase, onlyRun
}

// equal reports whether a and b agree within the relative tolerance.
func (o Options) equal(a, b float64) bool {
	return math.Abs(a-b) <= o.Tolerance*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// adjust sets AdjustedP: Bonferroni min(1, m·p), or Holm's step-down
// p̃_(i) = max_{j ≤ i} min(1, (m−j)·p_(j)) over the p-values in ascending order (j from 0).
func adjust(cs []Change, correction string) {
	m := len(cs)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(cs[i].P, cs[j].P) })
	running := 0.0
	for rank, i := range order {
		factor := float64(m)
		if correction == "holm" {
			factor = float64(m - rank)
		}
		adj := math.Min(1, factor*cs[i].P)
		if correction == "holm" {
			running = math.Max(running, adj)
			adj = running
		}
		cs[i].AdjustedP = adj
	}
}
