package audit

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Write writes the findings of the audit of mechanism mech at ε eps (NaN: none) over a
// vocabulary of vocab words, one line each, and its summary, with the time it took.
func (r *Report) Write(w io.Writer, mech string, eps float64, vocab int, took time.Duration) {
	epsText := "–"
	if !math.IsNaN(eps) {
		epsText = strconv.FormatFloat(eps, 'g', -1, 64)
	}
	if math.IsInf(r.Claim, 1) {
		fmt.Fprintf(w, "audit of %s at ε = %s over %d words: %s\n", mech, epsText, vocab, r.ClaimNote)
	} else {
		fmt.Fprintf(w, "audit of %s at ε = %s over %d words: %s; K = %d; %d one-sided tests at family-wise α = %g\n",
			mech, epsText, vocab, r.ClaimNote, r.Samples, r.Tests, r.Alpha)
	}
	for _, f := range r.Findings {
		mark := "ok  "
		if f.Violates() {
			mark = "FAIL"
		}
		if f.Level == "noise" || f.Level == "sampler" || f.Level == "decoding" || f.Level == "stages" {
			fmt.Fprintf(w, "%s %s\n", mark, f.Describe())
			continue
		}
		fmt.Fprintf(w, "%s %s; per unit %.4g\n", mark, f.Describe(), f.PerUnit())
	}
	for _, f := range r.Skipped {
		fmt.Fprintf(w, "skip %s %s: [%s] vs [%s]: %s\n", f.Level, f.Kind, strings.Join(f.X, " "), strings.Join(f.Y, " "), f.Reason)
	}
	staged := math.Inf(-1)
	for _, f := range r.Findings {
		if f.Level == "stages" && len(f.Y) > 0 && f.Units > 0 {
			staged = math.Max(staged, f.Bound/f.Units)
		}
	}
	if !math.IsInf(staged, -1) {
		fmt.Fprintf(w, "two-stage sampler audited in parts: over the tested pairs the stages compose to a loss of at most %.4g per unit (claimed %.6g), each stage's draws tested against its distribution\n", staged, r.Claim)
	}
	if r.Measured() {
		fmt.Fprintf(w, "audited ε lower confidence bound %.4g per unit, ceiling %.4g (the most these tests could show at K = %d; claimed %.6g); %d of %d tests exceed the claim",
			r.AuditedEpsilon(), r.AuditedCeiling(), r.Samples, r.Claim, len(r.Violations()), len(r.Findings))
	} else if !math.IsInf(staged, -1) {
		fmt.Fprintf(w, "no audited ε lower bound: counting outputs cannot show a loss near the claim; %d of %d tests exceed the claim", len(r.Violations()), len(r.Findings))
	} else if math.IsInf(r.Claim, 1) {
		fmt.Fprintf(w, "no audited ε: the claim is ∞, so no pair was tested; %d of %d tests exceed the claim", len(r.Violations()), len(r.Findings))
	} else {
		fmt.Fprintf(w, "no audited ε: no test bounded the release's loss (every tested pair of different words is unprotected, so the claim of %.6g bounds no pair); %d of %d tests exceed the claim",
			r.Claim, len(r.Violations()), len(r.Findings))
	}
	if n := r.Unfailable(); n > 0 {
		fmt.Fprintf(w, "; %d cannot fail at this K (ceiling below the claim)", n)
	}
	fmt.Fprintf(w, "; %.1f s\n", took.Seconds())
	// The smallest claim the unfailable tests make: refuting it by counting needs K outputs.
	least := math.Inf(1)
	for _, f := range r.Findings {
		if f.CannotFail() {
			least = math.Min(least, f.Claim)
		}
	}
	if !math.IsInf(least, 1) {
		k := r.SamplesToRefute(least)
		if math.IsInf(k, 1) {
			fmt.Fprintf(w, "to refute a claim of %.4g by counting outputs (the smallest claim of a test that cannot fail) would need about e^%.0f outputs per input: beyond any audit\n", least, least)
			return
		}
		fmt.Fprintf(w, "to refute a claim of %.4g by counting outputs (the smallest claim of a test that cannot fail) needs K ≥ %.3g per input, %.3g times this run's K",
			least, k, k/float64(r.Samples))
		if k <= 1e9 {
			fmt.Fprintf(w, " (about %s at this run's rate, if the tests' draws dominate)", (time.Duration(float64(took) * k / float64(r.Samples))).Round(time.Second))
		}
		fmt.Fprintln(w)
	}
}
