package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/internal/stats"
	"dptext/mechanisms"
	"dptext/mechanisms/nearest"

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

// Mechanisms builds a mechanism named in EpsilonFor at that ε, prints the sharing of the
// round's words (tokens per distinct word, counted here independently) in its header, and
// splits every ratio into sharing × per row. Mutants: EpsilonFor ignored (santext listed at
// ε 10); per row not divided by the sharing; distinct words miscounted.
func TestMechanismsSplitsTheRatio(t *testing.T) {
	store := fixtures.NormalStore(t, rngs.New(3, "bench/store"), fixtures.NumberedWords("w%02d", 40), 6, 1)
	env := &registry.Env{Embeddings: store, Workers: 1}
	var out strings.Builder
	o := MechanismsOptions{Epsilon: 10, EpsilonFor: map[string]float64{"santext": 2.5}, Names: []string{"santext", "tem", "none"},
		Documents: 6, Words: 50, ReferenceWords: 60, Rounds: 1, Vocabulary: "fixture"}
	if err := Mechanisms(context.Background(), &out, env, o); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	// The same documents as Mechanisms draws: the first stream of its generator.
	rng := rngs.New(1, "bench/mechanisms")
	seen := map[int]bool{}
	for range o.Documents {
		for _, r := range nearest.ZipfRows(rng, store.Len(), o.Words) {
			seen[r] = true
		}
	}
	sharing := float64(o.Documents*o.Words) / float64(len(seen))
	if want := fmt.Sprintf("(%d distinct words: %.2f tokens per distinct word)", len(seen), sharing); !strings.Contains(text, want) {
		t.Fatalf("header without %q:\n%s", want, text)
	}
	if !strings.Contains(text, "(santext at 2.5)") {
		t.Errorf("header does not name santext's ε:\n%s", text)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) >= 7 && (f[0] == "santext" || f[0] == "tem" || f[0] == "none") {
			rows[f[0]] = f
		}
	}
	if got := rows["santext"]; len(got) < 2 || got[1] != "2.5" {
		t.Errorf("santext's line %v: want ε 2.5", got)
	}
	if got := rows["tem"]; len(got) < 2 || got[1] != "10" {
		t.Errorf("tem's line %v: want ε 10", got)
	}
	if got := rows["none"]; len(got) < 2 || got[1] != "–" {
		t.Errorf("none's line %v: want no ε", got)
	}
	for _, name := range []string{"santext", "tem"} {
		f := rows[name]
		if len(f) != 7 {
			t.Fatalf("%s's line %v: want 7 columns", name, f)
		}
		ratio, err1 := strconv.ParseFloat(strings.TrimSuffix(f[5], "×"), 64)
		perRow, err2 := strconv.ParseFloat(strings.TrimSuffix(f[6], "×"), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s's line %v: ratio or per row not a number", name, f)
		}
		if math.Abs(perRow*sharing-ratio) > 0.05*sharing+0.05 {
			t.Errorf("%s: per row %.1f× × sharing %.2f = %.2f, want the ratio %.1f×", name, perRow, sharing, perRow*sharing, ratio)
		}
	}
}
