package audit

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"dptext/embeddings"
	"dptext/mechanisms"
)

// Audit builds the target of mechanism m (named name) over store and runs the audit with o,
// through the mechanism's release path: the one entry point of `dptext audit` (one mechanism
// or --all) and of a run's [audit] table.
func Audit(name string, m mechanisms.Mechanism, store *embeddings.Store, o Options) (*Report, error) {
	t, err := NewTarget(name, m, store)
	if err != nil {
		return nil, err
	}
	return Run(t, o)
}

// Strongest is the largest per-unit loss the report's tests showed and whether it is exact
// (computed from the mechanism's distribution) rather than a sampled lower confidence bound.
// ok is false when no test bounded the loss per claim unit (Measured).
func (r *Report) Strongest() (perUnit float64, exact, ok bool) {
	if !r.Measured() {
		return 0, false, false
	}
	perUnit = r.AuditedEpsilon()
	for _, f := range r.Findings {
		if f.bounds() && f.Units > 0 && f.Exact && f.PerUnit() == perUnit {
			exact = true
		}
	}
	return perUnit, exact, true
}

// SummaryRow is one line of the summary of several audits: the mechanism audited at ε
// (NaN: none), its report (nil when Err is set) and the time the audit took.
type SummaryRow struct {
	Mechanism string
	Epsilon   float64
	Report    *Report
	Err       error
	Took      time.Duration
}

// Failed reports whether the row's audit failed: a test exceeded the claim or the audit could
// not run.
func (s SummaryRow) Failed() bool { return s.Err != nil || len(s.Report.Violations()) > 0 }

// WriteSummary writes one line per audit: mechanism, ε, claimed per-unit ε, the audited
// per-unit bound (an exact loss, or a sampled lower confidence bound with the most the tests
// could show), the verdict (the number of tests that exceed the claim) and the seconds taken.
func WriteSummary(w io.Writer, rows []SummaryRow) {
	fmt.Fprintf(w, "%-18s %-8s %-10s %-40s %-26s %s\n", "mechanism", "ε", "claim", "audited (per unit)", "verdict", "seconds")
	for _, s := range rows {
		eps := "–"
		if !math.IsNaN(s.Epsilon) {
			eps = strconv.FormatFloat(s.Epsilon, 'g', -1, 64)
		}
		if s.Err != nil {
			fmt.Fprintf(w, "%-18s %-8s %-10s %-40s %-26s %.1f\n", s.Mechanism, eps, "–", "–", "ERROR: "+s.Err.Error(), s.Took.Seconds())
			continue
		}
		r := s.Report
		claim := strconv.FormatFloat(r.Claim, 'g', 6, 64)
		if math.IsInf(r.Claim, 1) {
			claim = "∞"
		}
		audited := "– (no test bounded a loss)"
		if v, exact, ok := r.Strongest(); ok && exact {
			audited = fmt.Sprintf("exact loss %.4g", v)
		} else if ok {
			audited = fmt.Sprintf("lower bound %.4g (ceiling %.4g)", v, r.AuditedCeiling())
		}
		verdict := fmt.Sprintf("pass (%d tests)", len(r.Findings))
		if v := r.Violations(); len(v) > 0 {
			verdict = fmt.Sprintf("FAIL (%d of %d tests)", len(v), len(r.Findings))
		}
		fmt.Fprintf(w, "%-18s %-8s %-10s %-40s %-26s %.1f\n", s.Mechanism, eps, claim, audited, verdict, s.Took.Seconds())
	}
}
