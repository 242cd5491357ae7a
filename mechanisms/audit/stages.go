package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// The two-stage sampler audited in parts (mechanisms.TwoStage: expmech with candidates = k > 0).
// Its release has no closed-form distribution and its claim ε₁ + ε is far above what counting
// outputs can show, so each stage is checked against the distribution its part of the claim
// requires, and the composition is stated:
//
//   - every pair (exact, from the ratings the mechanism states): the candidate stage's k picks
//     each lose at most L₁ = max_v |ln P₁(v|x) − ln P₁(v|y)| with P₁ ∝ exp(ε₁/(2k)·ρ), so at most
//     k·L₁ ≤ ε₁ together (sequential composition); the choice stage, over any shortlist, at
//     most ε·max_v |ρ(x, v) − ρ(y, v)| ≤ ε when every rating lies in [0, 1]; their sum bounds the
//     release's loss for the pair and is held to the claim (scaled, for a given claim, by the
//     share of ε₁ and ε in the mechanism's own);
//   - every tested input x, K draws with the mechanism's own staged code (DrawStages) and,
//     from generators in the same states, K releases of [x] through the release path: each
//     release must equal the staged draw's (else the stages tested are not the code that
//     releases); the shortlist's first row, one exponential-mechanism draw at scale ε₁/(2k),
//     is tested against P₁ through its rating (firstPickFinding; dropping the /k from the
//     candidate stage's ε fails here);
//     the chosen row, given its shortlist, by the randomised probability integral transform
//     u = F(r⁻) + U·P₂(r) (uniform on [0, 1] under P₂ ∝ exp(ε/2·ρ) over the shortlist), with
//     Kolmogorov–Smirnov against the uniform.
//
// Both sampled tests run at the audit's Bonferroni level, on min(K, stageDraws) draws. The
// counting tests of word pairs are not run for such a mechanism, nor the games whose claim is
// above the ceiling of a single test (ε₁ + ε per word is far above what counting can show:
// they cannot fail), so that the audit's cost is that of its stage draws.

// stageDraws bounds the staged draws per input: every draw is a pass over the vocabulary, and
// 1,000 draws reject the candidate stage at k times its scale on every input (see
// TestTwoStageAuditedInParts).
const stageDraws = 1000

// stageTests is the number of one-sided-level tests stagesFindings runs per input.
const stageTests = 2

// stagePairFinding bounds the loss of the pair p from the stages' exact distributions.
func stagePairFinding(t *Target, p wordPair, claim, units float64) Finding {
	k, eps1, eps := t.Stages.StageBudgets()
	f := Finding{Level: "stages", Kind: p.kind, X: []string{p.x}, Y: []string{p.y}, Exact: true, Method: "exact, per stage",
		Units: units, Claim: claim * units, PValue: math.NaN(), Ceiling: math.Inf(1)}
	rx, okx := t.Stages.StageRatings(p.x)
	ry, oky := t.Stages.StageRatings(p.y)
	if !okx || !oky || len(rx) != len(ry) {
		f.Rejected, f.Bound = true, math.NaN()
		f.Output = "the mechanism states no ratings for the pair: its stages cannot be checked"
		return f
	}
	scale := eps1 / (2 * float64(k))
	lx := mechanisms.ExponentialLogProbabilities(rx, scale)
	ly := mechanisms.ExponentialLogProbabilities(ry, scale)
	l1, dr, outside := 0.0, 0.0, 0
	for v := range lx {
		l1 = math.Max(l1, math.Abs(lx[v]-ly[v]))
		dr = math.Max(dr, math.Abs(rx[v]-ry[v]))
		if !(rx[v] >= 0 && rx[v] <= 1) || !(ry[v] >= 0 && ry[v] <= 1) {
			outside++
		}
	}
	f.Bound = float64(k)*l1 + eps*dr
	// A given claim is split between the stages as the mechanism's own is.
	share := f.Claim / (eps1 + eps)
	f.Rejected = outside > 0 || float64(k)*l1 > eps1*share*(1+claimTolerance)+claimTolerance
	f.Output = fmt.Sprintf("candidate stage %d picks × %.4g = %.4g (its claim %.4g), choice stage ≤ ε·max|Δρ| = %.4g; %d ratings outside [0, 1]",
		k, l1, float64(k)*l1, eps1*share, eps*dr, outside)
	return f
}

// stageFindings draws k staged draws and releases of x (stream index idx) and tests the
// release against the staged draw, the first pick against P₁ and the choice against P₂, at
// level a.
func stageFindings(t *Target, seed uint64, idx int, x string, k int, a float64) ([]Finding, error) {
	kk, eps1, eps := t.Stages.StageBudgets()
	base := Finding{Level: "stages", X: []string{x}, Units: 1, Bound: math.NaN(), PValue: math.NaN(), Ceiling: math.Inf(1)}
	ratings, ok := t.Stages.StageRatings(x)
	if !ok {
		return nil, fmt.Errorf("audit: stages of %q: the mechanism states no ratings", x)
	}
	stageGens, releaseGens, docs := make([]*rand.Rand, k), make([]*rand.Rand, k), make([][]string, k)
	for j := range k {
		path := fmt.Sprintf("audit/stages=%d/draw=%d", idx, j)
		stageGens[j], releaseGens[j], docs[j] = rngs.New(seed, path), rngs.New(seed, path), []string{x}
	}
	out, err := t.Release(releaseGens, docs)
	if err == nil && len(out) != k {
		err = fmt.Errorf("%d outputs for %d documents", len(out), k)
	}
	if err != nil {
		return nil, fmt.Errorf("audit: stages of %q: release: %w", x, err)
	}
	consistent := base
	consistent.Kind, consistent.Method, consistent.Exact = "release against the staged draw", "same generator states", true
	p1 := mechanisms.ExponentialLogProbabilities(ratings, eps1/(2*float64(kk)))
	firstRatings := make([]float64, 0, k)
	pit := make([]float64, 0, k)
	u := rngs.New(seed, fmt.Sprintf("audit/stages=%d/pit", idx))
	for j := range k {
		shortlist, released, ok := t.Stages.DrawStages(stageGens[j], x)
		if !ok || len(shortlist) == 0 {
			return nil, fmt.Errorf("audit: stages of %q: the mechanism draws no stages", x)
		}
		for _, r := range append([]int{released}, shortlist...) {
			if r < 0 || r >= len(ratings) || r >= len(t.OutputWords) {
				return nil, fmt.Errorf("audit: stages of %q: row %d outside the %d output words", x, r, len(t.OutputWords))
			}
		}
		if w := t.OutputWords[released]; len(out[j]) != 1 || out[j][0] != w {
			consistent.Rejected = true
			consistent.Output = fmt.Sprintf("draw %d: the release path released %q, the staged draw %q from the same generator state", j, out[j], w)
			return []Finding{consistent}, nil
		}
		firstRatings = append(firstRatings, ratings[shortlist[0]])
		v, ok := choicePIT(ratings, shortlist, released, eps/2, u.Float64())
		if !ok {
			consistent.Rejected = true
			consistent.Output = fmt.Sprintf("draw %d: released %q, not in its shortlist", j, t.OutputWords[released])
			return []Finding{consistent}, nil
		}
		pit = append(pit, v)
	}
	consistent.Output = fmt.Sprintf("%d draws: every release equals its staged draw", k)
	fs := []Finding{consistent}
	stage1 := firstPickFinding(base, ratings, p1, firstRatings, a, eps1, kk)
	stage2 := ksFinding(base, "choice stage given its shortlist", pit, func(v float64) float64 { return math.Max(0, math.Min(1, v)) }, a, eps)
	stage2.Method = "kolmogorov-smirnov of the randomised PIT"
	return append(fs, stage1, stage2), nil
}

// firstPickFinding tests the ratings ρ(x, ·) of the shortlists' first rows against their
// distribution under P₁ ∝ exp(ε₁/(2k)·ρ) (lp) by Kolmogorov–Smirnov at level a: over a large
// vocabulary P₁ is close to uniform over many words, so no output has the mass for a χ² cell,
// while a wrong scale moves the whole distribution of the rating drawn (P₁ tilted by e^{s·ρ}).
// The rating's distribution is discrete, which makes the test conservative.
func firstPickFinding(base Finding, ratings, lp, sample []float64, a, eps1 float64, k int) Finding {
	order := make([]int, len(ratings))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return ratings[order[i]] < ratings[order[j]] })
	values, cum := make([]float64, 0, len(order)), make([]float64, 0, len(order))
	total := 0.0
	for _, r := range order {
		total += math.Exp(lp[r])
		if n := len(values); n > 0 && values[n-1] == ratings[r] {
			cum[n-1] = total
			continue
		}
		values, cum = append(values, ratings[r]), append(cum, total)
	}
	cdf := func(v float64) float64 {
		i := sort.SearchFloat64s(values, math.Nextafter(v, math.Inf(1))) // values ≤ v
		if i == 0 {
			return 0
		}
		return math.Min(1, cum[i-1])
	}
	f := ksFinding(base, "candidate stage's first pick", sample, cdf, a, eps1)
	f.Method = "kolmogorov-smirnov of its rating"
	f.Output = fmt.Sprintf("against exp(ε₁/(2k)·ρ), ε₁ = %.4g, k = %d: %s", eps1, k, f.Output)
	return f
}

// choicePIT is the randomised probability integral transform F(r⁻) + U·P₂(r) of the released
// row r under P₂ ∝ exp(scale·ρ) over the shortlist (in its order); false when r is not in it.
func choicePIT(ratings []float64, shortlist []int, r int, scale, u float64) (float64, bool) {
	sr := make([]float64, len(shortlist))
	pos := -1
	for i, row := range shortlist {
		sr[i] = ratings[row]
		if row == r {
			pos = i
		}
	}
	if pos < 0 {
		return 0, false
	}
	lp := mechanisms.ExponentialLogProbabilities(sr, scale)
	below := 0.0
	for i := range pos {
		below += math.Exp(lp[i])
	}
	return below + u*math.Exp(lp[pos]), true
}

// stageInputs are the words whose stages are drawn: the first word of every pair, once each.
func stageInputs(pairs []wordPair) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range pairs {
		if !seen[p.x] {
			seen[p.x] = true
			out = append(out, p.x)
		}
	}
	return out
}
