package twostage

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/internal/rngs"
	"dptext/internal/stats"
)

// twoStageExact returns the exact output distribution of the two-stage sampler over ratings r:
// k candidates drawn one after another without replacement, each with probability
// ∝ exp(scale1·r_v) among the rows left, then one of them with probability ∝ exp(scale2·r_v)
// among the candidates. It sums over every ordered candidate sequence.
func twoStageExact(r []float64, k int, scale1, scale2 float64) []float64 {
	out := make([]float64, len(r))
	taken := make([]bool, len(r))
	var seq []int
	var walk func(p float64)
	walk = func(p float64) {
		if len(seq) == k {
			total := 0.0
			for _, v := range seq {
				total += math.Exp(scale2 * r[v])
			}
			for _, v := range seq {
				out[v] += p * math.Exp(scale2*r[v]) / total
			}
			return
		}
		left := 0.0
		for v := range r {
			if !taken[v] {
				left += math.Exp(scale1 * r[v])
			}
		}
		for v := range r {
			if taken[v] {
				continue
			}
			taken[v] = true
			seq = append(seq, v)
			walk(p * math.Exp(scale1*r[v]) / left)
			seq = seq[:len(seq)-1]
			taken[v] = false
		}
	}
	walk(1)
	return out
}

// TestTwoStageSamplerMatchesExactDistribution draws 100,000 times from the two-stage sampler
// (k = 3, ε₁ = 6, ε = 8) over a fixed rating row of 8 words spread over [0, 1] and compares the
// counts with the exact distribution (per-draw scale ε₁/(2k) in the first stage, ε/2 in the
// second) by Pearson's χ² test at false-failure rate 1e−6. The same counts must be rejected,
// at the same level, against the distributions of the three mis-scalings a sampler could have —
// the first stage without the 1/k split (ε₁/2), either stage without the 1/(2Δ) — so the test
// fails when ε is mis-scaled (measured: χ² ≥ 8,000 against each of them, critical value 40.5;
// the sampler edited to either mis-scaling fails the first check).
func TestTwoStageSamplerMatchesExactDistribution(t *testing.T) {
	const k, eps1, eps, n = 3, 6.0, 8.0, 100000
	r := []float64{0, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 1}
	s := NewSampler(k)
	rng := rngs.New(1, "erae/two-stage-test") // the stream's name from the test's first home, erae
	counts := make([]int, len(r))
	for range n {
		counts[s.Sample(rng, r, eps1, eps)]++
	}
	crit := distuv.ChiSquared{K: float64(len(r) - 1)}.Quantile(1 - 1e-6)
	if stat, df := stats.PearsonChiSquare(counts, twoStageExact(r, k, eps1/(2*k), eps/2), n); stat > crit || df != len(r)-1 {
		t.Errorf("χ² = %.1f > %.1f (df %d, false-failure rate 1e-6): counts %v do not follow the two-stage distribution", stat, crit, df, counts)
	}
	wrong := map[string][]float64{
		"first stage with ε₁/2 (no 1/k split)": twoStageExact(r, k, eps1/2, eps/2),
		"first stage with ε₁/k (no 1/(2Δ))":    twoStageExact(r, k, eps1/k, eps/2),
		"second stage with ε (no 1/(2Δ))":      twoStageExact(r, k, eps1/(2*k), eps),
	}
	for name, q := range wrong {
		stat, _ := stats.PearsonChiSquare(counts, q, n)
		t.Logf("%s: χ² = %.1f (critical %.1f)", name, stat, crit)
		if stat <= crit {
			t.Errorf("%s: χ² = %.1f ≤ %.1f: the test cannot tell this mis-scaling apart", name, stat, crit)
		}
	}
}
