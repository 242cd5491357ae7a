package audit

import (
	"math/rand/v2"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms/expmech"
	"dptext/mechanisms/internal/twostage"
)

// dropK is a mutant of the two-stage expmech whose candidate stage runs at ε₁/2 per pick, the
// /k dropped (k times the candidate stage's claim), in its release and in its staged draws alike.
type dropK struct {
	*expmech.ExpMech
	store *embeddings.Store
}

func (m dropK) DrawStages(rng *rand.Rand, word string) ([]int, int, bool) {
	r, ok := m.StageRatings(word)
	if !ok {
		return nil, 0, false
	}
	k, eps1, eps := m.StageBudgets()
	shortlist, released := twostage.NewSampler(k).Draw(rng, r, eps1*float64(k), eps)
	return shortlist, released, true
}

func (m dropK) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	for i, w := range doc {
		_, r, _ := m.DrawStages(rng, w)
		out[i] = m.store.Word(r)
	}
	return out
}

// ApplyBatch is the mutant's Apply on each document: the embedded ExpMech's batch path would
// release the correct mechanism through the release path the audit draws from.
func (m dropK) ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string {
	out := make([][]string, len(docs))
	for i, d := range docs {
		out[i] = m.Apply(rngs[i], d)
	}
	return out
}

// TestTwoStageAuditedInParts: the two-stage expmech over 3,000 words (k = 20 candidates,
// ε₁ = 40, ε = 10, the claim 50 per word) passes every stage check — release equal to its
// staged draw, the first pick against exp(ε₁/(2k)·ρ), the choice given its shortlist, and the
// composed exact bound of every pair within ε₁ + ε — and the same mechanism with the /k dropped
// from the candidate stage's ε fails the first pick's test on every input (the counting tests,
// whose ceiling is far below 50, could not; nor a χ² test: the first pick's distribution is
// too flat to give any output an expected count of 5).
func TestTwoStageAuditedInParts(t *testing.T) {
	store := fixtures.RandomStore(t, rngs.New(2, "stages"), 3000, 8, 1)
	opts := expmech.DefaultExpMechOptions()
	opts.Candidates, opts.CandidateEpsilon = 20, 40
	m, err := expmech.NewExpMech(store, 10, opts)
	if err != nil {
		t.Fatal(err)
	}
	o := options(2000)
	good := mustRun(t, target(t, "expmech two-stage", m, store), o)
	stages := 0
	for _, f := range good.Findings {
		if f.Level == "stages" {
			stages++
		}
		if f.Violates() {
			t.Errorf("correct two-stage expmech: %s", f.Describe())
		}
	}
	if stages < 9 {
		t.Fatalf("%d stage findings, want the pairs and inputs tested in parts", stages)
	}
	bad := mustRun(t, target(t, "expmech /k dropped", dropK{ExpMech: m, store: store}, store), o)
	firstPick, inputs := 0, 0
	for _, f := range bad.Findings {
		if f.Kind == "candidate stage's first pick" {
			inputs++
			if f.Violates() {
				firstPick++
			}
		}
	}
	if inputs == 0 || firstPick < inputs {
		t.Errorf("/k dropped: the first pick rejected on %d of %d inputs, want all", firstPick, inputs)
	}
	var out strings.Builder
	bad.Write(&out, "expmech", 2, store.Len(), 0)
	if !strings.Contains(out.String(), "FAIL stages of") {
		t.Errorf("report does not show the failed stage:\n%s", out.String())
	}
}
