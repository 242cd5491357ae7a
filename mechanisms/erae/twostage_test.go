package erae

import (
	"math/rand/v2"

	"context"
	"dptext/mechanisms"
	"dptext/mechanisms/audit"
	"math"
	"strings"
	"testing"

	"dptext/internal/rngs"
	"dptext/mechanisms/internal/twostage"
)

// TestTwoStageSampleIsTheSharedSampler: with stages, erae's draw of a position is the shared
// two-stage sampler's (twostage.Sampler, whose distribution its own test checks) called with
// erae's budgets: the same generator state gives the same row, draw after draw. Deterministic;
// erae handing the sampler ε₁/k or ε/2 instead (a mis-scaling) changes the rows and fails it.
func TestTwoStageSampleIsTheSharedSampler(t *testing.T) {
	const k, eps1, eps = 3, 6.0, 8.0
	r := []float64{0, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 1}
	e := &Mechanism{epsilon: eps, stages: Stages{Candidates: k, CandidateEpsilon: eps1}}
	s, shared := e.newStageScratch(), twostage.NewSampler(k)
	got, want := rngs.New(1, "erae/two-stage-shared"), rngs.New(1, "erae/two-stage-shared")
	for i := range 2000 {
		if g, w := e.sample(got, r, s), shared.Sample(want, r, eps1, eps); g != w {
			t.Fatalf("draw %d: erae released row %d, the shared sampler %d", i, g, w)
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

// dropK is the two-stage erae with the /k dropped from the candidate stage (each of the k picks
// at scale ε₁/2, k·ε₁ in all) while it still claims ε₁: a mutant the audit's stage tests catch.
type dropK struct{ *Mechanism }

func (d dropK) draw(rng *rand.Rand, r []float64) ([]int, int) {
	k := d.stages.Candidates
	return twostage.NewSampler(k).Draw(rng, r, d.stages.CandidateEpsilon*float64(k), d.epsilon)
}

func (d dropK) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	for i, r := range d.model.Probabilities(doc) {
		_, row := d.draw(rng, r)
		out[i] = d.model.Words[row]
	}
	return out
}

func (d dropK) DrawStages(rng *rand.Rand, word string) ([]int, int, bool) {
	r, ok := d.StageRatings(word)
	if !ok {
		return nil, 0, false
	}
	shortlist, released := d.draw(rng, r)
	return shortlist, released, true
}

// TestTwoStageAuditedInParts: the two-stage erae (k = 4, ε₁ = 40, ε = 10) exposes its stages
// (mechanisms.TwoStage), so the audit tests them through the release path — release equal to
// its staged draw, the first pick against exp(ε₁/(2k)·ρ), the choice given its shortlist —
// and a correct model passes every one, while the same mechanism with the /k dropped from the
// candidate stage fails the first pick's test. Each stage test's false-failure rate is at most
// the audit's α (here 10⁻³ over all its tests).
func TestTwoStageAuditedInParts(t *testing.T) {
	store, corpus := toyData(t)
	opts := toyOptions()
	model, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMechanism(model, 10, Stages{Candidates: 4, CandidateEpsilon: 40}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := audit.DefaultOptions()
	o.Samples, o.Alpha, o.Pairs = 2000, 1e-3, 2
	run := func(name string, mech mechanisms.Mechanism) *audit.Report {
		tg, err := audit.NewTarget(name, mech, store)
		if err != nil {
			t.Fatal(err)
		}
		r, err := audit.Run(tg, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	stages := 0
	for _, f := range run("erae two-stage", m).Findings {
		if f.Level == "stages" {
			stages++
		}
		if f.Violates() {
			t.Errorf("correct two-stage erae: %s", f.Describe())
		}
	}
	if stages == 0 {
		t.Fatal("no stage findings: the audit did not test erae's stages")
	}
	failed := 0
	for _, f := range run("erae /k dropped", dropK{m}).Findings {
		if f.Kind == "candidate stage's first pick" && f.Violates() {
			failed++
		}
	}
	t.Logf("correct: %d stage findings; /k dropped: %d first picks rejected", stages, failed)
	if failed == 0 {
		t.Error("/k dropped: no first pick rejected")
	}
}
