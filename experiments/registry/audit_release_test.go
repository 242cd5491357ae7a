package registry

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/audit"
)

// TestAuditDrawsThroughReleasePath: for every registry entry, what the audit draws is what a
// run releases. The runner privatises all of a cell's documents in one mechanisms.PrivatizeBatch
// call, each document with its own generator (runner.privatise); the audit's Apply must give,
// for the same generator, exactly the document the runner's batch gives — so that a leak that
// exists only in a mechanism's batch path (its ApplyBatch) is audited. A mechanism whose Apply
// and ApplyBatch differ fails this test as soon as the audit draws through Apply (the mutant:
// TestReleasePathLeak in package audit, SanText+ whose batch releases sensitive words
// unchanged, which this test would catch as a difference between the two paths). And Apply,
// through which the golden outputs are drawn, must release what the batch path releases.
func TestAuditDrawsThroughReleasePath(t *testing.T) {
	store, train, test, _, _, raw := goldenInputs(t)
	env := &Env{Embeddings: store, Workers: 1, Corpus: train, RawTexts: raw, Check: true}
	docs := append(append([][]string(nil), train[:4]...), test...)
	gens := func(name string) []*rand.Rand {
		g := make([]*rand.Rand, len(docs))
		for i := range g {
			g[i] = rngs.New(7, fmt.Sprintf("release/%s/%d", name, i))
		}
		return g
	}
	for _, name := range MechanismNames() {
		t.Run(name, func(t *testing.T) {
			o, err := Mechanisms[name].Decode(goldenParams(t, name, store, train))
			if err != nil {
				t.Fatal(err)
			}
			m, err := o.Build(env, 10)
			if err != nil {
				t.Fatal(err)
			}
			runner, err := mechanisms.PrivatizeBatch(m, gens(name), docs)
			if err != nil {
				t.Fatal(err)
			}
			tg, err := audit.NewTarget(name, m, store)
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range gens(name) {
				if got := tg.Apply(g, docs[i]); !slices.Equal(got, runner[i]) {
					t.Fatalf("document %d: the audit releases %q, the runner's batch %q for the same generator", i, got, runner[i])
				}
			}
			// The golden outputs (TestRegistryVersionsPinOutputs) are drawn through Apply: they
			// pin what is released only if Apply releases what the batch path does.
			for i, g := range gens(name) {
				if got := m.Apply(g, docs[i]); !slices.Equal(got, runner[i]) {
					t.Fatalf("document %d: Apply releases %q, the runner's batch %q for the same generator (a BatchMechanism must release what Apply does)", i, got, runner[i])
				}
			}
		})
	}
}
