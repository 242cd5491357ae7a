package verdict

import (
	"fmt"
	"math"
	"strings"
)

// HalfCheck is the replication of one significant verdict on two disjoint halves of the
// authors: the same pair, utility and level on each half alone (nil where a half has no such
// comparison, e.g. a curve that does not reach the level there), with each half's one-sided
// p-value in the verdict's direction and its Holm adjustment over the verdicts replicated.
type HalfCheck struct {
	Full   Pair
	Halves [2]*Pair
	// P is each half's one-sided p-value of "the difference is 0" against "it has the
	// verdict's direction" (1 where the half has no such comparison); Adj that p after Holm's
	// correction over every verdict replicated on that half.
	P, Adj [2]float64
}

// Diff is half h's difference oriented as the full verdict reads (its more − its less): > 0
// is the same direction. NaN where the half has no such comparison.
func (h HalfCheck) Diff(half int) float64 {
	p := h.Halves[half]
	switch {
	case p == nil:
		return math.NaN()
	case p.A == h.Full.A:
		return p.Diff
	}
	return -p.Diff
}

// Holds reports whether the verdict replicates on the half: its one-sided test in the
// verdict's direction is significant at α after Holm over the verdicts replicated.
func (h HalfCheck) Holds(half int, alpha float64) bool {
	return h.Halves[half] != nil && h.Adj[half] < alpha
}

// oneSidedP is the one-sided bootstrap p-value of half pair p in the direction of full: the
// share of the half's replicates whose centred, studentised difference reaches the half's
// statistic, (1 + #{b: (d_b − d)/se ≥ T})/(B + 1), with d oriented as the verdict reads and T
// its statistic d/se corrected for a bootstrap over the half's authors as the family's is
// (comparison.t: Student's t with n − 1 degrees of freedom, the bootstrap's (n−1)/n variance);
// a replicate in which a curve does not reach the level counts against it.
func oneSidedP(half *Result, p *Pair, full Pair) float64 {
	x, y := half.reps.vals[p.a], half.reps.vals[p.b]
	sign := 1.0
	if p.A != full.A {
		sign = -1
	}
	d := sign * p.Diff
	var t float64
	switch {
	case p.SE > 0:
		t = toNormal(math.Abs(d)/p.SE, half.Clusters)
		if d < 0 {
			t = -t
		}
	case d > 0:
		t = math.Inf(1)
	case d < 0:
		t = math.Inf(-1)
	}
	n := 0
	for b := range x {
		if math.IsNaN(x[b]) || math.IsNaN(y[b]) {
			n++
			continue
		}
		z := 0.0
		if p.SE > 0 {
			z = (sign*(x[b]-y[b]) - d) / p.SE
		}
		if z >= t {
			n++
		}
	}
	return float64(1+n) / float64(len(x)+1)
}

// ReplicateOnHalves replicates every significant verdict of the results full on the same
// tables computed on two disjoint halves of the authors (h1[i] and h2[i] are full[i]'s table on
// each half): per half, a one-sided test in the verdict's direction, Holm's correction over
// the verdicts replicated (and nothing else), at each table's α. Markdown then reports it. It
// returns an error when the lists' lengths differ.
func ReplicateOnHalves(full, h1, h2 []*Result) error {
	if len(h1) != len(full) || len(h2) != len(full) {
		return fmt.Errorf("verdict: %d tables, halves of %d and %d: want one per table", len(full), len(h1), len(h2))
	}
	find := func(r *Result, p Pair) *Pair {
		for i := range r.Pairs {
			q := &r.Pairs[i]
			if q.Utility == p.Utility && q.Level == p.Level && (q.A == p.A && q.B == p.B || q.A == p.B && q.B == p.A) {
				return q
			}
		}
		return nil
	}
	type ref struct{ r, k int }
	var refs []ref
	var ps [2][]float64
	for i, v := range full {
		v.halvesChecked = true
		v.Halves = nil
		for _, p := range v.Pairs {
			if !p.Compared || !(p.Adj < v.Spec.Alpha) {
				continue
			}
			hc := HalfCheck{Full: p, Halves: [2]*Pair{find(h1[i], p), find(h2[i], p)}}
			for h, half := range []*Result{h1[i], h2[i]} {
				hc.P[h] = 1
				if q := hc.Halves[h]; q != nil {
					hc.P[h] = oneSidedP(half, q, p)
				}
				ps[h] = append(ps[h], hc.P[h])
			}
			refs = append(refs, ref{i, len(v.Halves)})
			v.Halves = append(v.Halves, hc)
		}
	}
	for h := range ps {
		adj := Holm(ps[h])
		for j, rf := range refs {
			full[rf.r].Halves[rf.k].Adj[h] = adj[j]
		}
	}
	for _, v := range full {
		v.replication = len(refs)
	}
	return nil
}

// halvesMarkdown renders the replication on halves.
func (v *Result) halvesMarkdown(b *strings.Builder) {
	b.WriteString("### Replication on two disjoint halves of the authors\n\n")
	if len(v.Halves) == 0 {
		b.WriteString("No significant verdict of this table to replicate.\n\n")
		return
	}
	fmt.Fprintf(b, "Each verdict is tested again on each half alone: one-sided, in the verdict's direction (the half's difference, oriented as the verdict reads, against its centred replicates), with Holm's correction over the %d verdicts of this file replicated on that half and nothing else, at α = %g.",
		v.replication, v.Spec.Alpha)
	if floor := 1 / float64(v.Spec.Replicates+1); floor >= v.Spec.Alpha/float64(v.replication) {
		fmt.Fprintf(b, " With %d replicates no p is below %.2g, and Holm's first step over %d verdicts needs one below %.2g: raise `replicates` above %d for the replication to be able to succeed.",
			v.Spec.Replicates, floor, v.replication, v.Spec.Alpha/float64(v.replication), int(math.Ceil(float64(v.replication)/v.Spec.Alpha)))
	}
	b.WriteString("\n\n")
	held := 0
	for _, h := range v.Halves {
		fmt.Fprintf(b, "- %s:", h.Full.Verdict)
		for k, p := range h.Halves {
			if p == nil {
				fmt.Fprintf(b, " half %d not compared (a curve does not reach the level there);", k+1)
				continue
			}
			fmt.Fprintf(b, " half %d difference %+.3f, one-sided p = %.2g, Holm p = %.2g;", k+1, h.Diff(k), h.P[k], h.Adj[k])
		}
		both := h.Holds(0, v.Spec.Alpha) && h.Holds(1, v.Spec.Alpha)
		if both {
			held++
		}
		fmt.Fprintf(b, " holds in both: %v\n", both)
	}
	fmt.Fprintf(b, "\n%d of %d significant verdicts of this table hold (same direction, significant) in both halves.\n\n", held, len(v.Halves))
}
