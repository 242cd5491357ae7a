package verdict

import (
	"math"
	"math/rand/v2"
	"testing"

	"dptext/experiments/report"
	"dptext/internal/rngs"
)

// model is a simulated mechanism: at ε its attack succeeds on an item with probability
// chance + (top − chance)·σ(2(ln ε − ln attCentre)) plus the author's shift (sd 0.02), and an
// item's utility is floor + (1 − floor)·σ(1.5(ln ε − ln utilCentre)) − shift plus the author's
// effect (sd 0.05) and the item's (sd 0.15): the population means are those functions exactly.
type model struct{ chance, top, attCentre, floor, utilCentre, shift float64 }

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func (m model) attack(eps float64) float64 {
	return m.chance + (m.top-m.chance)*sigmoid(2*(math.Log(eps)-math.Log(m.attCentre)))
}

func (m model) utility(eps float64) float64 {
	return m.floor + (1-m.floor)*sigmoid(1.5*(math.Log(eps)-math.Log(m.utilCentre))) - m.shift
}

// truth is the utility where the attack's population mean equals level (bisection in ln ε).
func (m model) truth(level float64) float64 {
	lo, hi := math.Log(1e-6), math.Log(1e6)
	for range 200 {
		mid := (lo + hi) / 2
		if m.attack(math.Exp(mid)) > level {
			hi = mid
		} else {
			lo = mid
		}
	}
	return m.utility(math.Exp((lo + hi) / 2))
}

// simStudy is one simulated study: authors × per items, the authors' effects drawn once and
// shared by every mechanism and ε.
type simStudy struct {
	rng             *rand.Rand
	cluster         []int
	attShift, uEff  []float64
	authors, nItems int
}

func newSimStudy(rng *rand.Rand, authors, per int) *simStudy {
	s := &simStudy{rng: rng, authors: authors}
	for a := range authors {
		s.attShift = append(s.attShift, 0.02*rng.NormFloat64())
		s.uEff = append(s.uEff, 0.05*rng.NormFloat64())
		for range per {
			s.cluster = append(s.cluster, a)
		}
	}
	s.nItems = len(s.cluster)
	return s
}

// cell scores every item for mechanism mech of model m at ε (fresh mechanism randomness).
func (s *simStudy) cell(mech string, m model, eps float64) CurvePoint {
	a, u := make([]float64, s.nItems), make([]float64, s.nItems)
	pa, pu := m.attack(eps), m.utility(eps)
	for i, c := range s.cluster {
		if s.rng.Float64() < pa+s.attShift[c] {
			a[i] = 1
		}
		u[i] = pu + s.uEff[c] + 0.15*s.rng.NormFloat64()
	}
	return CurvePoint{Mechanism: mech, Epsilon: report.EpsilonOf(eps), Scores: map[string][]float64{"att": a, "util": u}}
}

// run scores the mechanisms (name → model) on grid and, with rounds > 0, runs the ε search
// (Propose, then the proposed cells) for that many rounds, as the runner does.
func (s *simStudy) run(spec Spec, mechs []string, models map[string]model, grid []float64, rounds int) []CurvePoint {
	var points []CurvePoint
	for _, name := range mechs {
		for _, e := range grid {
			points = append(points, s.cell(name, models[name], e))
		}
	}
	ranges := map[string]EpsilonRange{}
	for _, name := range mechs {
		ranges[name] = EpsilonRange{Min: 1e-3, Max: 1e4}
	}
	for range rounds {
		props, _ := Propose(spec, DefaultSearchRule, s.cluster, s.authors, points, ranges)
		if len(props) == 0 {
			break
		}
		for _, p := range props {
			points = append(points, s.cell(p.Mechanism, models[p.Mechanism], p.Epsilon))
		}
	}
	return points
}

// coverageWithSearch runs studies of one mechanism (40 authors × 6 items, grid ε 16 and 1,
// level 0.15) and returns the share whose 95 % interval of the matched utility covers the
// truth, with the search (rounds) or without (rounds 0, the mutant), and the mean number of
// cells the search added.
func coverageWithSearch(t *testing.T, studies, rounds int) (coverage, added float64) {
	m := model{chance: 0.05, top: 0.5, attCentre: 4, floor: 0.2, utilCentre: 2}
	spec := Spec{Attack: "att", Levels: []float64{0.15}, LevelNames: []string{"x"}, Utilities: []string{"util"},
		Replicates: 1000, Confidence: 0.95, Alpha: 0.05}
	truth := m.truth(0.15)
	rng := rngs.New(33, "search-coverage")
	hits, cells := 0, 0
	for range studies {
		s := newSimStudy(rng, 40, 6)
		points := s.run(spec, []string{"m"}, map[string]model{"m": m}, []float64{16, 1}, rounds)
		cells += len(points) - 2
		res, err := Matched(spec, s.cluster, s.authors, points, rng)
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Cells[0]; c.Status == StatusReached && c.Low <= truth && truth <= c.High {
			hits++
		}
	}
	return float64(hits) / float64(studies), float64(cells) / float64(studies)
}

// Test (c) of issue 33: with the ε search included, the 95 % interval of the matched utility
// covers the truth (the utility where the attack's population mean equals the level) in
// ≥ 93 % of 400 simulated studies. The grid (ε 16 and 1) brackets the level 0.15 only
// widely, where the utility is curved against the attack; the search adds points until the
// bracket is within 2 standard errors. Binomial(400, 0.95) falls below 93 % with probability
// 4 %; the test is deterministic (fixed seed; measured: 0.938 with 3.8 cells added per study).
// The mutant, no search, interpolates across the wide bracket: biased, it covers in 0.005 of
// the studies, and the same bound fails it. A second mutant, placing the new ε at the sample's
// own crossing (secant) instead of the bracket's midpoint, covered 0.907 (intervals 10 % too
// narrow: the data chose the points) and fails it too.
func TestSearchCoverage(t *testing.T) {
	const studies = 400
	cov, added := coverageWithSearch(t, studies, 4)
	t.Logf("with the search: matched utility covered in %.3f of %d studies (%.1f cells added per study)", cov, studies, added)
	if cov < 0.93 {
		t.Errorf("coverage %.3f with the search, want ≥ 0.93", cov)
	}
	mut, _ := coverageWithSearch(t, studies, 0)
	t.Logf("without the search (mutant): covered in %.3f", mut)
	if mut >= 0.93 {
		t.Errorf("without the search coverage is %.3f: the test cannot tell the search's effect", mut)
	}
}

// copiesStudies runs studies of four identical copies of one mechanism (independent draws of
// its randomness; 30 authors × 14 items, the size of configs/mechanisms.toml; grid ε 10 and 5,
// the level chance + 0.05 = 0.083 just below the attack at ε 5, where the issue saw copies of
// cmp split 2/2) and returns the number of studies whose copies differ in status at the
// level and the number with a significant verdict between copies.
func copiesStudies(t *testing.T, studies, rounds int) (split, significant int) {
	m := model{chance: 1.0 / 30, top: 0.2, attCentre: 8, floor: 0.3, utilCentre: 6}
	spec := Spec{Attack: "att", Levels: []float64{1.0/30 + 0.05}, LevelNames: []string{"x"}, Utilities: []string{"util"},
		Replicates: 2000, Confidence: 0.95, Alpha: 0.05}
	mechs := []string{"cmp", "cmp-2", "cmp-3", "cmp-4"}
	models := map[string]model{}
	for _, n := range mechs {
		models[n] = m
	}
	rng := rngs.New(33, "search-copies")
	for range studies {
		s := newSimStudy(rng, 30, 14)
		points := s.run(spec, mechs, models, []float64{10, 5}, rounds)
		res, err := Matched(spec, s.cluster, s.authors, points, rng)
		if err != nil {
			t.Fatal(err)
		}
		statuses := map[string]bool{}
		for _, c := range res.Cells {
			statuses[c.Status] = true
		}
		if len(statuses) > 1 {
			split++
		}
		for _, p := range res.Pairs {
			if p.Adj < spec.Alpha {
				significant++
				break
			}
		}
	}
	return split, significant
}

// Test (b) of issue 33: identical copies of one mechanism get the same reach status and no
// significant verdict beyond the stated error rate. Over 120 simulated studies with the search:
// copies never differ in status (measured: printed), and the share of studies with any
// significant verdict between copies (6 comparisons, the stepdown at α = 0.05: a family-wise
// rate ≤ 0.05) stays ≤ 0.12 — Binomial(120, 0.05) exceeds 14 with probability 0.2 % (measured: 0
// splits, 3 studies with a verdict). The mutant, no search (the grid as configured), splits
// the copies' status in 97 of the 120 studies, and the status bound fails it.
func TestIdenticalCopiesAgree(t *testing.T) {
	const studies = 120
	split, sig := copiesStudies(t, studies, 4)
	t.Logf("with the search: copies split in %d of %d studies, a significant verdict between copies in %d", split, studies, sig)
	if split > 0 {
		t.Errorf("identical copies differ in status in %d of %d studies, want none", split, studies)
	}
	if float64(sig)/studies > 0.12 {
		t.Errorf("a significant verdict between identical copies in %d of %d studies, want ≤ 12 %%", sig, studies)
	}
	mutSplit, _ := copiesStudies(t, studies, 0)
	t.Logf("without the search (mutant): copies split in %d of %d studies", mutSplit, studies)
	if mutSplit == 0 {
		t.Error("without the search the copies never split: the test cannot catch the fault")
	}
}

// Propose's rules on curves of constant item scores (standard error 0 except where stated):
// a level beyond the smallest ε asks for ε/4, or, at the range's Min, marks the mechanism as
// not reaching within its range; a level beyond the largest ε asks for ε·4 while the attack
// rises with ε and nothing where it is flat (a destructive mechanism); a bracket wider than
// Width standard errors is bisected in log ε; a top point within Margin standard errors of
// the level asks for ε·2.
// Deterministic. Mutant: swapping the ×4 and ÷4 steps, or bisecting in ε instead of log ε,
// fails the exact values.
func TestProposeRules(t *testing.T) {
	const n = 4
	cluster := []int{0, 1, 2, 3}
	pt := func(mech string, eps float64, att []float64) CurvePoint {
		return CurvePoint{Mechanism: mech, Epsilon: report.EpsilonOf(eps), Scores: map[string][]float64{"att": att, "u": make([]float64, n)}}
	}
	c := func(x float64) []float64 { return []float64{x, x, x, x} }
	points := []CurvePoint{
		pt("low", 8, c(0.5)), pt("low", 2, c(0.4)), // never reaches 0.2: ÷4 → 0.5
		pt("atmin", 8, c(0.5)), pt("atmin", 1, c(0.4)), // its range ends at 1
		pt("up", 8, c(0.1)), pt("up", 2, c(0.05)), // below 0.2 already: ×4 → 32
		pt("flat", 8, c(0.05)), pt("flat", 2, c(0.05)), // flat: nothing upwards
		pt("margin", 16, []float64{1, 1, 0, 0}), pt("margin", 1, []float64{0, 0, 0, 0}), // 0.5 (SE 0.29) → 0: width 0.5 ≤ 2·0.29, but 0.5 − 2·0.29 < 0.2: ×2 → 32
		pt("bisect", 16, c(0.6)), pt("bisect", 1, c(0)), // constant: SE 0, bracket wide: √16 = 4
	}
	ranges := map[string]EpsilonRange{"atmin": {Min: 1, Max: 100}}
	spec := Spec{Attack: "att", Levels: []float64{0.2}}
	props, ends := Propose(spec, DefaultSearchRule, cluster, n, points, ranges)
	got := map[string][]float64{}
	for _, p := range props {
		got[p.Mechanism] = append(got[p.Mechanism], p.Epsilon)
	}
	want := map[string][]float64{"low": {0.5}, "up": {32}, "bisect": {4}, "margin": {32}}
	for m, w := range want {
		if len(got[m]) != len(w) || got[m][0] != w[0] {
			t.Errorf("%s: proposed %v, want %v", m, got[m], w)
		}
	}
	for _, m := range []string{"atmin", "flat"} {
		if len(got[m]) != 0 {
			t.Errorf("%s: proposed %v, want nothing", m, got[m])
		}
	}
	if !ends["atmin"] || ends["low"] {
		t.Errorf("range ends %v, want atmin only", ends)
	}
}
