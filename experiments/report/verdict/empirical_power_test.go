package verdict

import (
	"math"
	"testing"

	"dptext/experiments/report"
	"dptext/internal/rngs"
)

// empiricalPoint is a cell of a simulated study on the empirical-ε axis of
// configs/mechanisms.toml's design: each of the 30 authors is x of 2 pairs scored on 5
// releases of x and 5 of x′ (20 trials of the distinguisher, success acc(ε) plus the author's
// shift), every item of an author scored with the author's accuracy (his mean over his trials),
// the utility continuous (util(ε), author sd 0.05, item sd 0.15).
func empiricalPoint(s *simStudy, mech string, acc func(float64) float64, util func(float64) float64, eps float64) CurvePoint {
	a, u := make([]float64, s.nItems), make([]float64, s.nItems)
	pa, pu := acc(eps), util(eps)
	perAuthor := make([]float64, s.authors)
	for c := range perAuthor {
		hits := 0
		for range 20 {
			if s.rng.Float64() < pa+s.attShift[c] {
				hits++
			}
		}
		perAuthor[c] = float64(hits) / 20
	}
	for i, c := range s.cluster {
		a[i] = perAuthor[c]
		u[i] = pu + s.uEff[c] + 0.15*s.rng.NormFloat64()
	}
	return CurvePoint{Mechanism: mech, Epsilon: report.EpsilonOf(eps), Scores: map[string][]float64{"att": a, "util": u}}
}

// empiricalPower runs studies of two mechanisms a and d with the same distinguisher accuracy
// curve (0.5 at ε → 0, 1 at ε → ∞, centre ε 8), d keeping gap less utility than a at every ε,
// on a grid of 15, 10, 5 with 2 rounds of the search under rule, at the level empirical ε 1
// (accuracy 0.731), B = 20,000. It returns the share of studies in which "a keeps more than d"
// is found at a Bonferroni bound over family comparisons (unadjusted p < α/family: a verdict
// under any of the family's adjustments), the share with any significant verdict at α/family (either
// direction), and the mean number of cells per study.
func empiricalPower(t *testing.T, studies int, gap float64, family int, rule SearchRule) (found, any, cells float64) {
	acc := func(eps float64) float64 { return 0.5 + 0.5*sigmoid(1.5*(math.Log(eps)-math.Log(8))) }
	utilA := func(eps float64) float64 { return 0.3 + 0.7*sigmoid(1.5*(math.Log(eps)-math.Log(3))) }
	utilD := func(eps float64) float64 { return utilA(eps) - gap }
	level := math.Exp(1) / (1 + math.Exp(1))
	spec := Spec{Attack: "att", Levels: []float64{level}, LevelNames: []string{"ε 1"}, Utilities: []string{"util"}, Replicates: 20000, Confidence: 0.95, Alpha: 0.05}
	rng := rngs.New(34, "empirical-power")
	n, sig, total := 0, 0, 0
	for range studies {
		s := newSimStudy(rng, 30, 14)
		var points []CurvePoint
		utils := map[string]func(float64) float64{"a": utilA, "d": utilD}
		for _, m := range []string{"a", "d"} {
			for _, e := range []float64{15, 10, 5} {
				points = append(points, empiricalPoint(s, m, acc, utils[m], e))
			}
		}
		ranges := map[string]EpsilonRange{"a": {1e-3, 1e4}, "d": {1e-3, 1e4}}
		for range 2 {
			props, _ := Propose(spec, rule, s.cluster, s.authors, points, ranges)
			if len(props) == 0 {
				break
			}
			for _, p := range props {
				points = append(points, empiricalPoint(s, p.Mechanism, acc, utils[p.Mechanism], p.Epsilon))
			}
		}
		total += len(points)
		res, err := Matched(spec, s.cluster, s.authors, points, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Pairs {
			if p.P < spec.Alpha/float64(family) {
				sig++
				if p.A == "a" {
					n++
				}
			}
		}
	}
	return float64(n) / float64(studies), float64(sig) / float64(studies), float64(total) / float64(studies)
}

// TestEmpiricalAxisPower: the power of the empirical-ε axis on configs/mechanisms.toml's
// design, printed in docs/privacy.md. 40 simulated studies per point (deterministic: fixed
// seed; a share's standard deviation ≤ 0.08). Measured: with one planned comparison (α = 0.05)
// a utility gap of 0.10 is found in 1.00 of the studies and 0.05 in 0.68, so the smallest gap
// found in ≥ 80 % on steps of 0.05 is 0.10; at a Bonferroni bound over 500 comparisons (a
// verdict.md like mechanisms.toml's; the unadjusted p is now the centred bootstrap p of the
// stepdown, AdjustFamilies) 0.15 is found in 0.75 (0.97 with the inverted-interval p before
// issue 43). Without a gap a
// significant verdict at α = 0.05 appears in 0.07 of studies (the size; asserted ≤ 0.15,
// which Binomial(40, 0.05) exceeds with probability 0.3 %). Mutant: the attack axis's search
// margin of 2 standard errors on this axis finds 0.15 over 500 in 0.40 of the studies (its
// curves fail to bracket the level in a few per cent of replicates, which count against the
// difference), and the ≥ 0.7 assertion fails it.
func TestEmpiricalAxisPower(t *testing.T) {
	const studies = 40
	one10, _, _ := empiricalPower(t, studies, 0.10, 1, EmpiricalSearchRule)
	one05, _, _ := empiricalPower(t, studies, 0.05, 1, EmpiricalSearchRule)
	fam15, _, cells := empiricalPower(t, studies, 0.15, 500, EmpiricalSearchRule)
	_, null, _ := empiricalPower(t, studies, 0, 1, EmpiricalSearchRule)
	mut15, _, _ := empiricalPower(t, studies, 0.15, 500, DefaultSearchRule)
	t.Logf("one comparison: gap 0.10 found in %.2f, 0.05 in %.2f; over 500: 0.15 in %.2f (margin 2: %.2f); no gap: a verdict in %.2f; %.1f cells per study", one10, one05, fam15, mut15, null, cells)
	if one10 < 0.8 || one05 >= 0.8 {
		t.Errorf("the smallest gap found 80 %% of the time with one comparison is not 0.10 (%.2f at 0.10, %.2f at 0.05)", one10, one05)
	}
	if fam15 < 0.7 {
		t.Errorf("over 500 comparisons a gap of 0.15 is found in %.2f of studies, want ≥ 0.7", fam15)
	}
	if mut15 >= 0.7 {
		t.Errorf("with the attack axis's margin a gap of 0.15 over 500 is found in %.2f: the test cannot tell the margins apart", mut15)
	}
	if null > 0.15 {
		t.Errorf("equal mechanisms: a significant verdict in %.2f of studies, want ≤ 0.15", null)
	}
}
