package erae

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/internal/rngs"
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
	e := &Mechanism{epsilon: eps, stages: Stages{Candidates: k, CandidateEpsilon: eps1}}
	s := e.newStageScratch()
	rng := rngs.New(1, "erae/two-stage-test")
	counts := make([]int, len(r))
	for range n {
		counts[e.sample(rng, r, s)]++
	}
	crit := distuv.ChiSquared{K: float64(len(r) - 1)}.Quantile(1 - 1e-6)
	if stat, df := chiSquare(counts, twoStageExact(r, k, eps1/(2*k), eps/2), n); stat > crit || df != len(r)-1 {
		t.Errorf("χ² = %.1f > %.1f (df %d, false-failure rate 1e-6): counts %v do not follow the two-stage distribution", stat, crit, df, counts)
	}
	wrong := map[string][]float64{
		"first stage with ε₁/2 (no 1/k split)": twoStageExact(r, k, eps1/2, eps/2),
		"first stage with ε₁/k (no 1/(2Δ))":    twoStageExact(r, k, eps1/k, eps/2),
		"second stage with ε (no 1/(2Δ))":      twoStageExact(r, k, eps1/(2*k), eps),
	}
	for name, q := range wrong {
		stat, _ := chiSquare(counts, q, n)
		t.Logf("%s: χ² = %.1f (critical %.1f)", name, stat, crit)
		if stat <= crit {
			t.Errorf("%s: χ² = %.1f ≤ %.1f: the test cannot tell this mis-scaling apart", name, stat, crit)
		}
	}
}

// TestTwoStageOptionsAndGuarantee checks the two-stage variant's option errors, that its
// guarantee is (ε₁ + ε)·l with both shares reported, that it claims no exact distribution, and
// that it keeps every word of the model's vocabulary reachable through Apply.
func TestTwoStageOptionsAndGuarantee(t *testing.T) {
	store, corpus := toyData(t)
	opts := toyOptions()
	opts.Steps, opts.PretrainSteps = 20, 10
	model, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    Stages
		want string
	}{
		{Stages{Candidates: -1}, "candidates = -1"},
		{Stages{Candidates: 41, CandidateEpsilon: 1}, "candidates = 41: want 0 (one stage) or 1 to 40"},
		{Stages{Candidates: 3}, "candidate_epsilon = 0: want a finite value > 0"},
		{Stages{Candidates: 3, CandidateEpsilon: math.Inf(1)}, "candidate_epsilon = +Inf"},
		{Stages{CandidateEpsilon: 2}, "candidate_epsilon = 2 needs candidates > 0"},
	} {
		if _, err := NewMechanism(model, 5, c.s, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want one containing %q", c.s, err, c.want)
		}
	}
	m, err := NewMechanism(model, 5, Stages{Candidates: 4, CandidateEpsilon: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := corpus[0][:10]
	g := m.Guarantee(doc)
	if g.Epsilon != 70 || g.Bounds["eps_l"] != 70 || g.Bounds["candidate_eps_l"] != 20 || g.Bounds["token_eps_l"] != 50 {
		t.Errorf("guarantee %+v: want ε = eps_l = (2 + 5)·10 = 70, candidate_eps_l = 20, token_eps_l = 50", g)
	}
	if _, ok := m.LogProbabilities(doc); ok {
		t.Error("the two-stage variant claims an exact distribution")
	}
	out := m.Apply(rngs.New(1, "erae/two-stage-apply"), doc)
	if len(out) != len(doc) {
		t.Fatalf("%d words out for %d in", len(out), len(doc))
	}
	for _, w := range out {
		if _, ok := model.index[w]; !ok {
			t.Errorf("output word %q is not in the model's vocabulary", w)
		}
	}
}

// TestModelKindIsChecked: a model trained with the reward is refused by ae-dp and one trained
// without it by erae, with errors naming the file and the mechanism to use.
func TestModelKindIsChecked(t *testing.T) {
	store, corpus := toyData(t)
	opts := toyOptions()
	opts.Steps, opts.PretrainSteps = 6, 3
	withReward, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts.Reward = false
	plain, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !withReward.RewardTrained() || plain.RewardTrained() {
		t.Fatalf("RewardTrained: %v with the reward, %v without", withReward.RewardTrained(), plain.RewardTrained())
	}
	if err := withReward.CheckKind("er.model", true); err != nil {
		t.Errorf("erae with an ER-AE model: %v", err)
	}
	if err := plain.CheckKind("ae.model", false); err != nil {
		t.Errorf("ae-dp with an AE-DP model: %v", err)
	}
	if err := plain.CheckKind("ae.model", true); err == nil || !strings.Contains(err.Error(), "ae.model") || !strings.Contains(err.Error(), `"ae-dp"`) {
		t.Errorf("erae with an AE-DP model: err = %v, want one naming ae.model and ae-dp", err)
	}
	if err := withReward.CheckKind("er.model", false); err == nil || !strings.Contains(err.Error(), "er.model") || !strings.Contains(err.Error(), `"erae"`) {
		t.Errorf("ae-dp with an ER-AE model: err = %v, want one naming er.model and erae", err)
	}
}
