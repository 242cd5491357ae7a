package bench

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/internal/stats"
	"dptext/mechanisms"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestReferenceAndBatchDrawOneDistribution: the ratio `bench mechanisms` prints compares two
// implementations of one distribution. For every mechanism with a reference, n = 20,000 copies
// of one word go through the reference and through the runner's batch path, and each count of
// output words is tested against exp(LogProbabilities) with Pearson's χ² at the 1 − 10⁻⁶
// quantile (false failure 10⁻⁶ per test, 1.2·10⁻⁵ over the twelve). Power: at n = 20,000 over
// these 12 to 40 words, a sampler that draws one row in 20 from the wrong place (a shift
// of 0.05 of the mass) has χ² far above the cut (the off-by-one mutant of sampleLog, which
// moves all of the mass, gives χ² in the tens of thousands).
func TestReferenceAndBatchDrawOneDistribution(t *testing.T) {
	store := fixtures.NormalStore(t, rngs.New(3, "bench/store"), fixtures.NumberedWords("w%02d", 40), 6, 1)
	env := &registry.Env{Embeddings: store, Workers: 1}
	const n = 20000
	for _, c := range []struct {
		name string
		eps  float64
	}{{"santext", 3}, {"santext+", 3}, {"tem", 3}, {"custext", 3}, {"expmech", 6}, {"syntf", 20}} {
		t.Run(c.name, func(t *testing.T) {
			mo, err := registry.DecodeMechanism(c.name, report.EpsilonOf(c.eps), "")
			if err != nil {
				t.Fatal(err)
			}
			m, err := mo.Build(env, c.eps)
			if err != nil {
				t.Fatal(err)
			}
			ref, ok := NewReference(m, store, registry.Mechanisms[c.name].Releases == registry.ReleaseTermFrequencies)
			if !ok {
				t.Fatal("no reference")
			}
			word := store.Word(7)
			lp, _ := m.(logProber).LogProbabilities(word)
			q := make([]float64, len(lp))
			for i, x := range lp {
				q[i] = math.Exp(x)
			}
			doc := slices.Repeat([]string{word}, n)
			batch, err := mechanisms.PrivatizeBatch(m, []*rand.Rand{rngs.New(1, "batch")}, [][]string{doc})
			if err != nil {
				t.Fatal(err)
			}
			for path, out := range map[string][]string{"reference": ref.Apply(rngs.New(1, "reference"), doc), "batch": batch[0]} {
				counts := make([]int, store.Len())
				for _, w := range out {
					id, ok := store.Lookup(w)
					if !ok {
						t.Fatalf("%s released %q, not a vocabulary word", path, w)
					}
					counts[id]++
				}
				stat, df := stats.PearsonChiSquare(counts, q, len(out))
				if crit := (distuv.ChiSquared{K: float64(df)}).Quantile(1 - 1e-6); df < 1 || stat > crit {
					t.Errorf("%s: χ² = %.1f on %d df, above the 1 − 10⁻⁶ quantile %.1f", path, stat, df, crit)
				}
			}
		})
	}
}

// The mechanisms without a per-word distribution in closed form get no reference.
func TestNoReferenceWithoutADistribution(t *testing.T) {
	store := fixtures.NormalStore(t, rngs.New(3, "bench/store"), fixtures.NumberedWords("w%02d", 40), 6, 1)
	env := &registry.Env{Embeddings: store, Workers: 1}
	for _, name := range []string{"emd", "none"} {
		mo, err := registry.DecodeMechanism(name, report.EpsilonOf(10), "")
		if err != nil {
			t.Fatal(err)
		}
		m, err := mo.Build(env, 10)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := NewReference(m, store, false); ok {
			t.Errorf("%s: a reference", name)
		}
	}
}

// The truncated Gumbel mechanism has no closed-form distribution: its reference and its batch
// path are compared with each other. n = 20,000 copies of one word through each; the two
// counts of output words are tested for one distribution with the two-sample (contingency) χ²,
// at the 1 − 10⁻⁶ quantile (false failure 10⁻⁶; outputs whose pooled count is below 10 are
// pooled into one category). Mutants: the reference's Poisson mean doubled (χ² = 3,586 on 13
// df) and its neighbours taken in row order instead of by distance (χ² = 25,824) — both fail.
// Its power is limited where the truncation dominates the noise: the reference's Gumbel scale
// doubled passed at this ε (the noise truncated to ±Δ_max is nearly flat at either scale).
func TestGumbelReferenceMatchesTheBatchPath(t *testing.T) {
	store := fixtures.NormalStore(t, rngs.New(3, "bench/store"), fixtures.NumberedWords("w%02d", 40), 6, 1)
	env := &registry.Env{Embeddings: store, Workers: 1}
	const n, eps = 20000, 60.0
	mo, err := registry.DecodeMechanism("truncated-gumbel", report.EpsilonOf(eps), "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := mo.Build(env, eps)
	if err != nil {
		t.Fatal(err)
	}
	ref, ok := referenceOf(m, store, false)
	if !ok {
		t.Fatal("no reference")
	}
	doc := slices.Repeat([]string{store.Word(7)}, n)
	batch, err := mechanisms.PrivatizeBatch(m, []*rand.Rand{rngs.New(1, "batch")}, [][]string{doc})
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float64, store.Len()), make([]float64, store.Len())
	for _, w := range ref.Apply(rngs.New(1, "reference"), doc) {
		id, _ := store.Lookup(w)
		a[id]++
	}
	for _, w := range batch[0] {
		id, _ := store.Lookup(w)
		b[id]++
	}
	stat, bins := 0.0, 0
	var restA, restB float64
	add := func(x, y float64) {
		ex := (x + y) / 2 // equal sample sizes: each side expects half the pooled count
		stat += (x-ex)*(x-ex)/ex + (y-ex)*(y-ex)/ex
		bins++
	}
	for i := range a {
		if a[i]+b[i] >= 10 {
			add(a[i], b[i])
		} else {
			restA, restB = restA+a[i], restB+b[i]
		}
	}
	if restA+restB > 0 {
		add(restA, restB)
	}
	if bins < 3 {
		t.Fatalf("only %d categories: ε = %g releases too few distinct words for the test to see anything", bins, eps)
	}
	if crit := (distuv.ChiSquared{K: float64(bins - 1)}).Quantile(1 - 1e-6); stat > crit {
		t.Errorf("χ² = %.1f on %d df, above the 1 − 10⁻⁶ quantile %.1f", stat, bins-1, crit)
	}
	t.Logf("χ² = %.1f on %d df", stat, bins-1)
}
