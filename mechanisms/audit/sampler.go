package audit

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// samplerFinding tests the mechanism's sampler for input x against the exact distribution the
// audit computes for x (LogProbabilities), so that a bug in the sampling code alone (its
// cumulative weights, an off-by-one row) fails even when the computed distribution meets the
// claim: the K′ draws of sample (K′ ≥ K, see samplerDraws), Pearson's χ² over the outputs of expected count ≥ 5 with the rest pooled in
// one cell (merged into the smallest cell when below 5), at level a; a draw of an output whose
// computed probability is 0 rejects at once. The χ² approximation with every expected count
// ≥ 5 keeps the false-failure rate near a (Cochran 1954). Power: moving probability δ between
// two cells of probabilities p and q adds K·δ²(1/p + 1/q) to the statistic's mean, so at
// K = 3,000 moving 1.8 % of the mass between two outputs of probability 0.1 is rejected about
// half the time against the critical value of 10 degrees of freedom at the default level.
func samplerFinding(t *Target, x string, rows map[string]int, sample []string, a float64) Finding {
	f := Finding{Level: "sampler", Kind: "goodness of fit", X: []string{x}, Method: "chi-squared", Exact: false,
		Bound: math.NaN(), Ceiling: math.Inf(1), Units: 1}
	lp, _ := t.LogProbabilities(x)
	counts := make([]int, len(lp))
	k := len(sample)
	for _, w := range sample {
		r, ok := rows[w]
		if !ok || math.IsInf(lp[r], -1) {
			f.Rejected, f.PValue = true, 0
			f.Output = fmt.Sprintf("drew %q, whose computed probability is 0", w)
			return f
		}
		counts[r]++
	}
	return chiSquaredFit(f, lp, counts, k, a)
}

// chiSquaredFit completes f with Pearson's χ² test of counts (k draws, indexed by row) against
// the distribution lp at level a: outputs of expected count ≥ 5 each a cell, the rest pooled
// (merged into the smallest cell when below 5).
func chiSquaredFit(f Finding, lp []float64, counts []int, k int, a float64) Finding {
	type cell struct{ obs, exp float64 }
	order := make([]int, len(lp))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return lp[order[i]] > lp[order[j]] })
	var cells []cell
	var rest cell
	for _, r := range order {
		e := float64(k) * math.Exp(lp[r])
		if e >= 5 {
			cells = append(cells, cell{float64(counts[r]), e})
		} else {
			rest.obs += float64(counts[r])
			rest.exp += e
		}
	}
	switch {
	case rest.exp >= 5 || len(cells) == 0:
		cells = append(cells, rest)
	case rest.exp > 0 || rest.obs > 0:
		last := &cells[len(cells)-1]
		last.obs, last.exp = last.obs+rest.obs, last.exp+rest.exp
	}
	if len(cells) < 2 {
		f.PValue = 1
		f.Output = fmt.Sprintf("one cell holds all draws (%.3g of %d expected outside the most likely output): nothing to compare, cannot fail at this K", float64(k)-cells[0].exp+rest.exp, k)
		return f
	}
	chi := 0.0
	for _, c := range cells {
		chi += (c.obs - c.exp) * (c.obs - c.exp) / c.exp
	}
	df := float64(len(cells) - 1)
	dist := distuv.ChiSquared{K: df}
	f.PValue = dist.Survival(chi)
	f.Rejected = f.PValue < a
	f.Output = fmt.Sprintf("χ² = %.4g on %d cells, critical %.4g at level %.3g", chi, len(cells), dist.Quantile(1-a), a)
	return f
}

// ownTop is the number of most probable outputs other than the input tested on their own by
// ownWordFinding.
const ownTop = 3

// ownWordTests is the number of one-sided-level tests ownWordFinding runs per input.
const ownWordTests = 1 + ownTop

// ownInflation is the share of releases moved onto the input word (a leak releasing it
// unchanged) that the own-word test detects about half the time where its draws allow.
const ownInflation = 0.02

// samplerDraws is the number of draws K′ the sampler tests of input x use: at least k and, for
// a mechanism whose K′ draws are one release (IndependentPositions), enough that removing the
// input's own mass is rejected with certainty — (1 − p)^K′ ≤ e^{−K′p} below a/2 needs
// K′·p ≥ ln(2/a), so K′ ≥ ⌈3·ln(2/a)/p⌉ with p = P(x|x) — and that releasing the input
// unchanged in a share q = ownInflation of draws (P(x|x) becomes q + (1 − q)·p) is rejected
// about half the time: q(1 − p)·K′ ≥ z_{a/2}·√(K′p(1 − p)), K′ ≥ z²·p/(q²(1 − p)); capped at
// maxDraws.
func samplerDraws(t *Target, x string, rows map[string]int, k, maxDraws int, a float64) int {
	lp, _ := t.LogProbabilities(x)
	own, ok := rows[x]
	if !ok || !t.Positional || math.IsInf(lp[own], -1) {
		return k
	}
	p := math.Exp(lp[own])
	z := distuv.UnitNormal.Quantile(1 - a/2)
	want := math.Max(3*math.Log(2/a)/p, z*z*p/(ownInflation*ownInflation*(1-p)))
	if math.IsInf(want, 1) || want > float64(maxDraws) {
		return max(k, maxDraws)
	}
	return max(k, int(math.Ceil(want)))
}

// ownWordFinding tests, for input x, the released word's own probability and those of the
// ownTop most probable other outputs, each on its own (never pooled into a χ² cell): with c the
// count of the output among the K′ draws of sample and p its computed probability, the exact
// two-sided binomial p-value 2·min(P(X ≤ c), P(X ≥ c)), X ~ Binomial(K′, p), rejects below a
// (see samplerDraws for K′). Removing the own mass is rejected with certainty once
// K′·p ≥ ln(2/a) (the finding says when it is not); inflating or deflating it by a factor 1 ± δ
// about half the time once δ ≥ z_{a/2}/√(K′p). The false-failure rate of each test is at most a
// (exact test).
func ownWordFinding(t *Target, x string, rows map[string]int, sample []string, a float64) Finding {
	f := Finding{Level: "sampler", Kind: "own word and largest outputs", X: []string{x}, Method: "exact binomial",
		Bound: math.NaN(), Ceiling: math.Inf(1), Units: 1}
	lp, _ := t.LogProbabilities(x)
	own, inOutputs := rows[x]
	pOwn := 0.0
	if inOutputs {
		pOwn = math.Exp(lp[own])
	}
	draws := len(sample)
	tested := []int{}
	if inOutputs && pOwn > 0 {
		tested = append(tested, own)
	}
	order := make([]int, len(lp))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return lp[order[i]] > lp[order[j]] })
	for _, r := range order {
		if len(tested) >= ownWordTests || math.IsInf(lp[r], -1) {
			break
		}
		if !inOutputs || r != own {
			tested = append(tested, r)
		}
	}
	counts := map[int]int{}
	for _, w := range sample {
		if r, ok := rows[w]; ok {
			counts[r]++
		}
	}
	f.PValue = 1
	var parts []string
	for _, r := range tested {
		p := math.Exp(lp[r])
		c := counts[r]
		b := distuv.Binomial{N: float64(draws), P: p}
		pv := 1.0
		if c > 0 {
			pv = math.Min(pv, 2*b.Survival(float64(c)-0.5))
		}
		pv = math.Min(1, math.Min(pv, 2*b.CDF(float64(c))))
		label := t.OutputWords[r]
		if inOutputs && r == own {
			label += " (itself)"
		}
		parts = append(parts, fmt.Sprintf("%s %d, expected %.4g, p = %.3g", label, c, float64(draws)*p, pv))
		if pv < f.PValue {
			f.PValue = pv
		}
	}
	f.Rejected = f.PValue < a
	note := ""
	if inOutputs && pOwn > 0 && float64(draws)*pOwn < math.Log(2/a) {
		note = fmt.Sprintf("; at K′ = %d the own word's removal is not detectable (K′·p = %.3g < ln(2/a) = %.3g)", draws, float64(draws)*pOwn, math.Log(2/a))
	}
	f.Output = fmt.Sprintf("K′ = %d draws at level %.3g: %s%s", draws, a, strings.Join(parts, "; "), note)
	return f
}
