package expmech

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/internal/rngs"
	"dptext/mechanisms"
)

// batchMechanisms are the samplers with ApplyBatch, on a 2,000-word vocabulary, each at a
// small and a large ε, with both out-of-vocabulary policies.
func batchMechanisms(t testing.TB) map[string]interface {
	mechanisms.Mechanism
	mechanisms.BatchMechanism
} {
	store := expMechGoldenStore(t, 2000, 16)
	out := map[string]interface {
		mechanisms.Mechanism
		mechanisms.BatchMechanism
	}{}
	for _, eps := range []float64{1, 8} {
		for _, oov := range []string{SampleOOVUniform, SampleOOVKeep} {
			so := DefaultSanTextOptions()
			so.OOV, so.CacheRows = oov, 16
			san, err := NewSanText(store, eps, so)
			if err != nil {
				t.Fatal(err)
			}
			po := DefaultSanTextPlusOptions()
			po.OOV, po.CacheRows = oov, 0
			plus, err := NewSanText(store, eps, po)
			if err != nil {
				t.Fatal(err)
			}
			to := DefaultTEMOptions()
			to.OOV = oov
			tem, err := NewTEM(store, eps, to)
			if err != nil {
				t.Fatal(err)
			}
			eo := DefaultExpMechOptions()
			eo.OOV, eo.CacheRows = oov, 16 // SampleOOV* and ExpMechOOV* are the same words
			em, err := NewExpMech(store, eps, eo)
			if err != nil {
				t.Fatal(err)
			}
			ro := DefaultExpMechOptions()
			ro.Rating = ExpMechRatingRandom
			random, err := NewExpMech(store, eps, ro)
			if err != nil {
				t.Fatal(err)
			}
			// The truncated Gumbel mechanism's scale needs a larger ε (a·Δ_min > 1).
			go_ := DefaultTruncatedGumbelOptions()
			go_.OOV, go_.CacheRows = oov, 16
			gumbel, err := NewTruncatedGumbel(store, 150*eps, go_)
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("truncated-gumbel/%g/%s", 150*eps, oov)] = gumbel
			out[fmt.Sprintf("expmech/%g/%s", eps, oov)] = em
			out[fmt.Sprintf("expmech-random/%g/%s", eps, oov)] = random
			out[fmt.Sprintf("santext/%g/%s", eps, oov)] = san
			out[fmt.Sprintf("santext+/%g/%s", eps, oov)] = plus
			out[fmt.Sprintf("tem/%g/%s", eps, oov)] = tem
		}
	}
	return out
}

// ApplyBatch gives, word for word, what Apply gives on each document with the same
// generator: 40 Zipf-distributed documents of 300 tokens with unknown words mixed in (so every
// branch of Apply's rng use is taken), more distinct words than one window of rows
// (applyWindow), for SanText, SanText+, TEM, the truncated Gumbel mechanism and expmech (embedding
// rating, and the random rating that runs Apply per document) at two ε and both OOV policies. Equal outputs
// for equal generators mean the same distribution. The mutant, TEM's batch path with the rows
// of ε 1 % off, gives different outputs on the same documents: the comparison catches a change
// of the distribution that small.
func TestApplyBatchEqualsApply(t *testing.T) {
	store := expMechGoldenStore(t, 2000, 16)
	docs := expMechZipfDocs(store, 7, 40, 300)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range docs {
		for k := 0; k < 10; k++ {
			d[rng.IntN(len(d))] = fmt.Sprintf("unknownword%d", rng.IntN(5))
		}
	}
	gens := func() []*rand.Rand {
		g := make([]*rand.Rand, len(docs))
		for i := range g {
			g[i] = rngs.New(1, fmt.Sprint("doc=", i))
		}
		return g
	}
	same := func(m mechanisms.Mechanism, b mechanisms.BatchMechanism) (bool, error) {
		got, err := mechanisms.PrivatizeBatch(b.(mechanisms.Mechanism), gens(), docs)
		if err != nil {
			return false, err
		}
		for i, g := range gens() {
			if !slices.Equal(got[i], m.Apply(g, docs[i])) {
				return false, nil
			}
		}
		return true, nil
	}
	for name, m := range batchMechanisms(t) {
		ok, err := same(m, m)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("%s: ApplyBatch and Apply differ", name)
		}
	}
	tem, _ := NewTEM(store, 8, DefaultTEMOptions())
	off, _ := NewTEM(store, 8.08, DefaultTEMOptions())
	mutant := *tem
	mutant.em = off.em
	if ok, _ := same(tem, &mutant); ok {
		t.Error("a batch path with ε 1 % off gave the same outputs: the comparison cannot see a changed distribution")
	}
}

// Tokens per second of Apply document by document (today's path) and of ApplyBatch over the
// same 40 documents of 400 Zipf-distributed tokens on a 20,000 × 100 vocabulary, cache of 256
// rows, in one run.
func BenchmarkApplyBatch20k(b *testing.B) {
	store := expMechGoldenStore(b, 20000, 100)
	docs := expMechZipfDocs(store, 5, 40, 400)
	san, _ := NewSanText(store, 3, DefaultSanTextOptions())
	tem, _ := NewTEM(store, 3, DefaultTEMOptions())
	tokens := 0
	for _, d := range docs {
		tokens += len(d)
	}
	for _, c := range []struct {
		name string
		m    interface {
			mechanisms.Mechanism
			mechanisms.BatchMechanism
		}
	}{{"santext", san}, {"tem", tem}} {
		gens := func() []*rand.Rand {
			g := make([]*rand.Rand, len(docs))
			for i := range g {
				g[i] = rngs.New(1, fmt.Sprint(i))
			}
			return g
		}
		b.Run(c.name+"/apply", func(b *testing.B) {
			for b.Loop() {
				for i, g := range gens() {
					c.m.Apply(g, docs[i])
				}
			}
			b.ReportMetric(float64(b.N*tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
		b.Run(c.name+"/batch", func(b *testing.B) {
			for b.Loop() {
				c.m.ApplyBatch(gens(), docs)
			}
			b.ReportMetric(float64(b.N*tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
