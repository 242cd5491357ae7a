package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// samplerFinding tests the mechanism's sampler for input x against the exact distribution the
// audit computes for x (LogProbabilities), so that a bug in the sampling code alone (its
// cumulative weights, an off-by-one row) fails even when the computed distribution meets the
// claim: K draws, Pearson's χ² over the outputs of expected count ≥ 5 with the rest pooled in
// one cell (merged into the smallest cell when below 5), at level a; a draw of an output whose
// computed probability is 0 rejects at once. The χ² approximation with every expected count
// ≥ 5 keeps the false-failure rate near a (Cochran 1954). Power: moving probability δ between
// two cells of probabilities p and q adds K·δ²(1/p + 1/q) to the statistic's mean, so at
// K = 3,000 moving 1.8 % of the mass between two outputs of probability 0.1 is rejected about
// half the time against the critical value of 10 degrees of freedom at the default level.
func samplerFinding(t *Target, rng *rand.Rand, x string, rows map[string]int, k int, a float64) Finding {
	f := Finding{Level: "sampler", Kind: "goodness of fit", X: []string{x}, Method: "chi-squared", Exact: false,
		Bound: math.NaN(), Ceiling: math.Inf(1), Units: 1}
	lp, _ := t.LogProbabilities(x)
	counts := make([]int, len(lp))
	for _, w := range t.SampleWord(rng, x, k) {
		r, ok := rows[w]
		if !ok || math.IsInf(lp[r], -1) {
			f.Rejected, f.PValue = true, 0
			f.Output = fmt.Sprintf("drew %q, whose computed probability is 0", w)
			return f
		}
		counts[r]++
	}
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
