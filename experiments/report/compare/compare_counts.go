package compare

import (
	"math"

	"dptext/experiments/report"

	"gonum.org/v1/gonum/stat/distuv"
)

// MethodPairedBinomial tests a count of words out of a known number (unchanged_words of
// share_words) paired by repeat: see pairedBinomialP.
const MethodPairedBinomial = "paired-binomial"

// sharesWithCounts maps a share that the run also writes as counts to its numerator, and the
// numerator to its denominator: the share is then tested through the counts (and not twice).
var (
	shareCounts = map[string]string{"unchanged_share": report.MetricUnchangedWords}
	countOf     = map[string]string{report.MetricUnchangedWords: report.MetricShareWords}
)

// wordCounts are metrics counting words: whole numbers ≥ 0.
var wordCounts = map[string]bool{report.MetricUnchangedWords: true, report.MetricShareWords: true}

// countRepeats returns, per repeat present on both sides, the numerator k and denominator n of
// cell key (metric: the numerator) in base and cur: kb, kr, n (ok false when a side lacks the
// counts, or a repeat's denominators differ — a protocol change reported on its own).
func countRepeats(base, cur *report.Summary, key report.Key) (kb, kr, n []float64, ok bool) {
	den := key
	den.Metric = countOf[key.Metric]
	byRepeat := func(s *report.Summary, k report.Key) (map[int]float64, bool) {
		c, ok := s.Cell(k)
		if !ok {
			return nil, false
		}
		m := map[int]float64{}
		for i, r := range c.Repeats {
			m[r] = c.Values[i]
		}
		return m, true
	}
	bk, ok1 := byRepeat(base, key)
	rk, ok2 := byRepeat(cur, key)
	bn, ok3 := byRepeat(base, den)
	rn, ok4 := byRepeat(cur, den)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, nil, nil, false
	}
	for r, x := range bk {
		y, okY := rk[r]
		nb, okB := bn[r]
		nr, okR := rn[r]
		if !okY || !okB || !okR {
			continue
		}
		if nb != nr {
			return nil, nil, nil, false
		}
		kb, kr, n = append(kb, x), append(kr, y), append(n, nb)
	}
	return kb, kr, n, len(n) > 0
}

// hasCounts reports whether both sides hold the counts behind share metric key.
func hasCounts(base, cur *report.Summary, key report.Key) bool {
	num, ok := shareCounts[key.Metric]
	if !ok {
		return false
	}
	key.Metric = num
	_, _, _, ok = countRepeats(base, cur, key)
	return ok
}

// pairedBinomialP is the two-sided p-value of the difference of the run's and the baseline's
// counts summed over the repeats both hold, D = Σ_r (k_run,r − k_base,r), against its variance
// under "same law": the counts of repeat r on both sides count words of the same documents
// (same seed, same split), each word released independently with its own probability p_j, so
// Var D = 2 Σ_j p_j(1 − p_j) ≤ 2 Σ_r n_r p̄_r(1 − p̄_r), with p̄_r the pooled share of repeat r
// (a sum of independent Bernoulli draws has at most the binomial variance of its mean): the
// normal test of D against that bound errs towards not flagging. Without spread (every share
// 0 or 1), p is 1 when the counts agree, else 0.
func pairedBinomialP(kb, kr, n []float64) float64 {
	d, v := pairedStat(kb, kr, n)
	if v == 0 {
		if d == 0 {
			return 1
		}
		return 0
	}
	return 2 * distuv.UnitNormal.CDF(-math.Abs(d)/math.Sqrt(v))
}

// pairedStat returns D and its variance bound (see pairedBinomialP).
func pairedStat(kb, kr, n []float64) (d, v float64) {
	for i := range n {
		d += kr[i] - kb[i]
		p := (kb[i] + kr[i]) / (2 * n[i])
		v += 2 * n[i] * p * (1 - p)
	}
	return d, v
}
