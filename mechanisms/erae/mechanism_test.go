package erae

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"dptext/internal/rngs"
	"dptext/internal/stats"
	"dptext/mechanisms"
)

// TestSamplerMatchesExactDistribution draws one position of a document many times through
// Apply and compares the counts with P(v) ∝ exp(ε·Pr[x̃_i = v]/2), written out here from the
// generator's probabilities, by a χ² test at false-failure rate 1e−6. The same samples must
// reject the distribution of a mis-scaled ε (exp(ε·ρ) without the 1/(2Δ)), so the test can
// tell the two apart.
func TestSamplerMatchesExactDistribution(t *testing.T) {
	store, corpus := toyData(t)
	model, err := Train(context.Background(), corpus, store, toyOptions(), "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	const eps, n, pos = 12.0, 20000, 3
	mech, err := NewMechanism(model, eps, Stages{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := corpus[0][:10]
	rho := model.Probabilities(doc)[pos]
	exact := func(scale float64) []float64 {
		q := make([]float64, len(rho))
		sum := 0.0
		for v, r := range rho {
			q[v] = math.Exp(scale * r)
			sum += q[v]
		}
		for v := range q {
			q[v] /= sum
		}
		return q
	}
	index := map[string]int{}
	for i, w := range mech.Words() {
		index[w] = i
	}
	counts := make([]int, len(rho))
	for k := range n {
		out := mech.Apply(rngs.New(uint64(k), "erae-sampler-test"), doc)
		counts[index[out[pos]]]++
	}
	stat, df := stats.PearsonChiSquare(counts, exact(eps/2), n)
	crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - 1e-6)
	if stat > crit {
		t.Errorf("χ² = %.1f > %.1f (df %d, false-failure rate 1e-6): samples do not follow exp(ε·ρ/2)", stat, crit, df)
	}
	wrong, wdf := stats.PearsonChiSquare(counts, exact(eps), n)
	if wcrit := (distuv.ChiSquared{K: float64(wdf)}).Quantile(1 - 1e-6); wrong <= wcrit {
		t.Errorf("χ² against the mis-scaled exp(ε·ρ) = %.1f ≤ %.1f: the test cannot detect a wrong scale here", wrong, wcrit)
	}
	// The exact log-probabilities agree with the formula.
	lps, _ := mech.LogProbabilities(doc)
	lp := lps[pos]
	for v, q := range exact(eps / 2) {
		if math.Abs(math.Exp(lp[v])-q) > 1e-12 {
			t.Fatalf("LogProbabilities row %d: %g, want %g", v, math.Exp(lp[v]), q)
		}
	}
	// Reproducible from the seed.
	a, b := mech.Apply(rngs.New(5, "x"), doc), mech.Apply(rngs.New(5, "x"), doc)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different outputs: %v vs %v", a, b)
	}
	if g := mech.Guarantee(doc); g.Epsilon != eps*float64(len(doc)) {
		t.Errorf("guarantee ε = %g, want ε·l = %g", g.Epsilon, eps*float64(len(doc)))
	}
}

// TestDiagnose checks the diagnostics against counts made here: the kept share, the tokens
// outside the model's vocabulary (toyData puts "zzz-oov" at position 5), and the mean
// probability of the original token.
func TestDiagnose(t *testing.T) {
	store, corpus := toyData(t)
	model, err := Train(context.Background(), corpus, store, toyOptions(), "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	mech, err := NewMechanism(model, 10, Stages{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := corpus[0][:10]
	private := slices.Clone(doc)
	private[0], private[1] = "other", "other"
	d := mech.Diagnose(doc, private)
	if d["unchanged_share"] != 0.8 || d["oov_tokens"] != 1 {
		t.Errorf("unchanged_share = %g, oov_tokens = %g; want 0.8 and 1", d["unchanged_share"], d["oov_tokens"])
	}
	mass := 0.0
	for i, r := range model.Probabilities(doc) {
		for v, w := range model.Words {
			if w == doc[i] {
				mass += r[v]
			}
		}
	}
	if math.Abs(d["original_mass"]-mass/10) > 1e-12 || !(mass > 0) {
		t.Errorf("original_mass = %g, want %g", d["original_mass"], mass/10)
	}
}

// TestFunctionWordsModelRewritesStopwords checks the release of a model trained on text with
// its function words: PrivatizeText hands it every word of the text, stopwords included (the
// guarantee counts them), and writes a vocabulary word at every stopword's place, while a model
// trained without them gets the normalised words only and keeps the stopwords. The toy
// vocabulary has no stopword, so a stopword left in place is a word the mechanism never saw. It
// fails if the option is not recorded in the model, if the mechanism does not report it, or if
// the release ignores it.
func TestFunctionWordsModelRewritesStopwords(t *testing.T) {
	store, corpus := toyData(t)
	opts := toyOptions()
	opts.Steps, opts.PretrainSteps = 3, 1
	const raw = "The w01 of w02, and w03."
	for _, fw := range []bool{false, true} {
		opts.FunctionWords = fw
		model, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m")
		if err := model.Save(path); err != nil {
			t.Fatal(err)
		}
		if model, err = Load(path); err != nil {
			t.Fatal(err)
		}
		mech, err := NewMechanism(model, 1, Stages{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, words, inPlace, err := mechanisms.PrivatizeText(mech, func() *rand.Rand { return rngs.New(1, "t") }, raw)
		if err != nil || !inPlace {
			t.Fatalf("function words %v: err %v, in place %v", fw, err, inPlace)
		}
		want := []string{"w01", "w02", "w03"}
		if fw {
			want = []string{"the", "w01", "of", "w02", "and", "w03"}
		}
		if !slices.Equal(words, want) {
			t.Errorf("function words %v: the mechanism read %q, want %q", fw, words, want)
		}
		if g := mech.Guarantee(words); g.Epsilon != float64(len(want)) {
			t.Errorf("function words %v: guarantee ε·l = %g, want %d", fw, g.Epsilon, len(want))
		}
		for _, stop := range []string{"The ", " of ", " and "} {
			if kept := strings.Contains(out, stop); kept == fw {
				t.Errorf("function words %v: output %q keeps %q: %v, want %v", fw, out, stop, kept, !fw)
			}
		}
	}
}
