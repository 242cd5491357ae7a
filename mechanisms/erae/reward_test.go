package erae

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/internal/rngs"
)

// rewardData returns a store of 48 words in 8 dimensions, in 8 synonym groups of 6 (the words
// of a group share one direction; cosines within a group ≈ 0.7, across groups ≈ 0), and 60
// documents of 30 tokens, each a deterministic walk over the groups in the document's own
// "style" (always the same word of each group): the auto-encoder can reconstruct every word,
// and a synonym is never the original.
func rewardData(t *testing.T) (*embeddings.Store, [][]string) {
	t.Helper()
	const groups, per, dim = 8, 6, 8
	words := make([]string, groups*per)
	for i := range words {
		words[i] = fmt.Sprintf("g%dw%d", i/per, i%per)
	}
	store := synthStore(t, rand.New(rand.NewPCG(11, 3)), words, dim, 0.25, func(i int) int { return i / per })
	var corpus [][]string
	for d := range 60 {
		doc := make([]string, 30)
		g, style, step := d%groups, d%per, 1+d%3
		for i := range doc {
			doc[i] = words[g*per+style]
			g = (g + step) % groups
		}
		corpus = append(corpus, doc)
	}
	return store, corpus
}

// rewardOptions are the settings of the reward test: 40 pre-training steps, then 160 more with
// or without the reward (on the centred cosine, the default).
func rewardOptions(reward bool, lambdaEmbed float64) TrainOptions {
	o := DefaultTrainOptions()
	o.Vocab, o.Hidden, o.Latent, o.Length, o.Batch, o.PretrainSteps, o.Steps = 48, 24, 12, 15, 16, 40, 200
	o.LearningRate = 0.01
	o.Reward, o.LambdaEmbed = reward, lambdaEmbed
	return o
}

// generatorStats returns, over every in-vocabulary position of docs, the mean probability the
// generator gives the original token and the mean cosine, plain and centred, between the
// original word's vector and those of the generator's 5 most probable words (the paper's Table 3
// observation), written out by a full sort: the reference for Mechanism.Diagnose.
func generatorStats(m *Model, store *embeddings.Store, docs [][]string) (origMass, top5Sim, top5Centered float64) {
	vectors := wordRows(store, m.Words)
	plain, centered := newRewarder(vectors, store.Dim(), false), newRewarder(vectors, store.Dim(), true)
	n := 0
	for _, d := range docs {
		for i, p := range m.Probabilities(d) {
			id, ok := m.index[d[i]]
			if !ok {
				continue
			}
			origMass += p[id]
			order := make([]int, len(p))
			for v := range order {
				order[v] = v
			}
			sort.SliceStable(order, func(a, b int) bool { return p[order[a]] > p[order[b]] })
			for _, v := range order[:5] {
				top5Sim += plain.cosine(id, int32(v)) / 5
				top5Centered += centered.cosine(id, int32(v)) / 5
			}
			n++
		}
	}
	return origMass / float64(n), top5Sim / float64(n), top5Centered / float64(n)
}

// diagnosedStats returns what Mechanism.Diagnose reports of the same three quantities, averaged
// over the in-vocabulary positions of docs.
func diagnosedStats(t *testing.T, m *Model, store *embeddings.Store, docs [][]string) (origMass, top5Sim, top5Centered float64) {
	t.Helper()
	mech, err := NewMechanism(m, 10, Stages{}, store)
	if err != nil {
		t.Fatal(err)
	}
	n := 0.0
	for _, d := range docs {
		diag := mech.Diagnose(d, d)
		rated := float64(len(d)) - diag["oov_tokens"]
		origMass += diag["original_mass"] * float64(len(d))
		top5Sim += diag["top5_similarity"] * rated
		top5Centered += diag["top5_similarity_centered"] * rated
		n += rated
	}
	return origMass / n, top5Sim / n, top5Centered / n
}

// TestDiagnoseTopSimilarity checks the top5_similarity and original_mass diagnostics against
// the full-sort reference on a trained model, and that vectors the model was not trained with
// are refused by name.
func TestDiagnoseTopSimilarity(t *testing.T) {
	store, corpus := rewardData(t)
	model, err := Train(context.Background(), corpus, store, rewardOptions(true, 0.5), "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantMass, wantSim, wantCentered := generatorStats(model, store, corpus)
	gotMass, gotSim, gotCentered := diagnosedStats(t, model, store, corpus)
	if math.Abs(gotMass-wantMass) > 1e-12 || math.Abs(gotSim-wantSim) > 1e-12 || math.Abs(gotCentered-wantCentered) > 1e-12 {
		t.Errorf("Diagnose: original_mass %.15f, top5_similarity %.15f, top5_similarity_centered %.15f; the full sort gives %.15f, %.15f, %.15f",
			gotMass, gotSim, gotCentered, wantMass, wantSim, wantCentered)
	}
	if gotSim == gotCentered {
		t.Errorf("plain and centred top-5 similarity are both %.15f: the store's mean vector is not 0, so they must differ", gotSim)
	}
	if d := must(NewMechanism(model, 10, Stages{}, nil)).Diagnose(corpus[0], corpus[0]); len(d) != 4 {
		t.Errorf("without vectors Diagnose reported %v: want no top-5 similarity", d)
	}
	// released_top5_share: 1 for a release of every position's most probable word, 0 for one of
	// every position's least probable word, 0.5 when half the positions are of each kind.
	doc := corpus[0]
	best, worst, half := make([]string, len(doc)), make([]string, len(doc)), make([]string, len(doc))
	for i, r := range model.Probabilities(doc) {
		lo := 0
		for v := range r {
			if r[v] < r[lo] {
				lo = v
			}
		}
		best[i], worst[i] = model.Words[topRows(r, 1)[0]], model.Words[lo]
		half[i] = best[i]
		if i%2 == 1 {
			half[i] = worst[i]
		}
	}
	mech := must(NewMechanism(model, 10, Stages{}, store))
	for _, c := range []struct {
		name    string
		private []string
		want    float64
	}{{"most probable", best, 1}, {"least probable", worst, 0}, {"alternating", half, 0.5}} {
		if got := mech.Diagnose(doc, c.private)["released_top5_share"]; got != c.want {
			t.Errorf("released_top5_share of the %s words = %g, want %g", c.name, got, c.want)
		}
	}
	short, err := embeddings.New(store.Words()[1:], store.Dim(), store.Matrix()[store.Dim():])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewMechanism(model, 10, Stages{}, short); err == nil || !strings.Contains(err.Error(), store.Word(0)) {
		t.Errorf("vectors without the model's word %q: error %v, want one naming the word", store.Word(0), err)
	}
	narrow, err := embeddings.New([]string{"a"}, 3, []float32{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewMechanism(model, 10, Stages{}, narrow); err == nil || !strings.Contains(err.Error(), "3 dimensions") {
		t.Errorf("3-dimensional vectors for an %d-dimensional model: error %v, want one naming both", model.Sizes.Embed, err)
	}
}

// TestRewarderCentering checks the centred cosine: adding one vector to every word's vector
// (what all the words of a trained embedding share) leaves it unchanged, it makes the plain
// cosine of unrelated words large, and centred the mean cosine over all pairs of distinct words
// is about 0 (the centred rows sum to 0; with equal norms the mean would be −1/(V−1); here it
// must be within 0.05 of 0).
func TestRewarderCentering(t *testing.T) {
	const V, dim = 60, 16
	rng := rand.New(rand.NewPCG(8, 1))
	base := make([]float32, V*dim)
	for i := range base {
		base[i] = float32(rng.NormFloat64())
	}
	shifted := slices.Clone(base)
	for i := range shifted {
		shifted[i] += 3 // a direction every word shares
	}
	meanCos := func(r *rewarder) float64 {
		s, n := 0.0, 0
		for a := range int32(V) {
			for b := range a {
				s += r.cosine(a, b)
				n++
			}
		}
		return s / float64(n)
	}
	cb, cs := newRewarder(base, dim, true), newRewarder(shifted, dim, true)
	for a := range int32(V) {
		for b := range int32(V) {
			if d := math.Abs(cb.cosine(a, b) - cs.cosine(a, b)); d > 1e-5 {
				t.Fatalf("centred cosine of rows %d, %d changed by %g when every vector moved by the same offset", a, b, d)
			}
		}
	}
	if plain := meanCos(newRewarder(shifted, dim, false)); plain < 0.5 {
		t.Errorf("plain mean cosine of the shifted vectors %.3f: want > 0.5 (the shared direction)", plain)
	}
	if c := meanCos(cs); math.Abs(c) > 0.05 {
		t.Errorf("centred mean cosine %.3f: want about 0", c)
	}
	if c := cs.cosine(4, 4); math.Abs(c-1) > 1e-6 {
		t.Errorf("centred cosine of a word with itself %g, want 1", c)
	}
}

// TestTopRows checks the top-k selection against a full sort, ties included.
func TestTopRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := range 200 {
		r := make([]float64, 1+rng.IntN(30))
		for i := range r {
			r[i] = float64(rng.IntN(6)) // many ties
		}
		k := 1 + trial%8
		want := make([]int, len(r))
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(a, b int) bool { return r[want[a]] > r[want[b]] })
		want = want[:min(k, len(r))]
		if got := topRows(r, k); !slices.Equal(got, want) {
			t.Fatalf("topRows(%v, %d) = %v, want %v", r, k, got, want)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// rewardEffect trains the same seed twice — the embedding reward with weight lambdaEmbed (on
// the centred cosine or the plain one), and the plain auto-encoder — and returns the reward's
// change of the original token's mass and of the top-5 similarity (plain cosine) on the
// training documents.
func rewardEffect(t *testing.T, lambdaEmbed float64, centered bool) (dMass, dSim float64, with *Model) {
	t.Helper()
	store, corpus := rewardData(t)
	opts := rewardOptions(true, lambdaEmbed)
	opts.CenterVectors = centered
	with, err := Train(context.Background(), corpus, store, opts, "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	without, err := Train(context.Background(), corpus, store, rewardOptions(false, lambdaEmbed), "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	mw, sw, cw := diagnosedStats(t, with, store, corpus)
	mo, so, co := diagnosedStats(t, without, store, corpus)
	t.Logf("λ_embed = %g, centred %v: original-token mass %.4f with the reward, %.4f without; top-5 cosine %.4f with, %.4f without (centred %.4f, %.4f)",
		lambdaEmbed, centered, mw, mo, sw, so, cw, co)
	return mw - mo, sw - so, with
}

// TestRewardSpreadsMassToSimilarWords is the paper's Table 3 observation on a synthetic corpus
// (rewardData) whose every word has five synonyms: the plain auto-encoder learns to copy its
// input, while the reward pays for mass on the original's synonyms. Trained from the same seed
// for 200 steps (40 of pre-training), with and without the reward (λ_embed = 0.5, as
// published), for each of the reward's two cosines the reward must lower the mean probability
// of the original token by at least 0.15 and raise the mean cosine of the top-5 words to the
// original by at least 0.15. Measured with the default start state, word dropout and frozen
// vectors: mass 0.933 → 0.550 (centred) and → 0.513 (plain), top-5 cosine 0.225 → 0.591 and →
// 0.574, so each margin is under half the effect; the test is
// deterministic (fixed seeds, one goroutine), and the slack covers rounding differences of
// other BLAS kernels, so it has no false-failure rate. With λ_embed = 0 the two runs are the
// same model bit for bit and both differences are exactly 0 — the second part checks it — so
// the margins measure the reward and nothing else, and the test fails without it. Generation is
// reproducible from the seed.
func TestRewardSpreadsMassToSimilarWords(t *testing.T) {
	const margin = 0.15
	var model *Model
	masses := map[bool]float64{}
	for _, centered := range []bool{true, false} {
		dMass, dSim, m := rewardEffect(t, 0.5, centered)
		masses[centered] = dMass
		if !(dMass <= -margin) {
			t.Errorf("centred %v: the reward changed the original token's mass by %+.4f: want a decrease of at least %g", centered, dMass, margin)
		}
		if !(dSim >= margin) {
			t.Errorf("centred %v: the reward changed the top-5 cosine by %+.4f: want an increase of at least %g", centered, dSim, margin)
		}
		if centered {
			model = m
		}
	}
	if masses[true] == masses[false] {
		t.Errorf("the centred and the plain reward trained the same model (mass change %+.4f): CenterVectors is not used", masses[true])
	}
	if dMass0, dSim0, _ := rewardEffect(t, 0, true); dMass0 != 0 || dSim0 != 0 {
		t.Errorf("λ_embed = 0: differences %+g, %+g; want exactly 0 (same seed, same gradient)", dMass0, dSim0)
	}
	mech, err := NewMechanism(model, 10, Stages{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, corpus := rewardData(t)
	a := mech.Apply(rngs.New(3, "reward-test"), corpus[0])
	b := mech.Apply(rngs.New(3, "reward-test"), corpus[0])
	c := mech.Apply(rngs.New(4, "reward-test"), corpus[0])
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different outputs:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 3 and 4 gave the same %d words: the output does not depend on the seed", len(a))
	}
}

// rewardLoop trains a model on the reward test's data the way Train does (same batches, losses
// and updates; no word dropout, embeddings fine-tuned), with γ floored at floor, and returns the
// smallest batch embedding loss of the reward phase and the share of rated candidates whose
// cosine was below RewardFloor.
func rewardLoop(t *testing.T, floor float64) (minEmbed, below float64) {
	t.Helper()
	store, corpus := rewardData(t)
	opts := rewardOptions(true, 0.5)
	words := Vocabulary(corpus, store, opts.Vocab)
	vectors := wordRows(store, words)
	wins := windows(encodeCorpus(words, corpus), opts.Length)
	sizes := Sizes{Vocab: len(words), Embed: store.Dim(), Hidden: opts.Hidden, Latent: opts.Latent, StartState: opts.StartState}
	tr := &trainer{opts: opts, words: words, p: NewParams[float32](sizes)}
	initParams(tr.p, vectors, rngs.New(opts.Seed, "erae/init"))
	tr.m, tr.v = make([]float32, len(tr.p.All)), make([]float32, len(tr.p.All))
	rw := newRewarder(vectors, store.Dim(), true)
	rw.floor = floor
	w := newBatch[float32](sizes, opts.Batch, opts.Length)
	g := NewParams[float32](sizes)
	seqs := make([][]int32, opts.Batch)
	minEmbed = math.Inf(1)
	n, low := 0, 0
	for ; tr.step < opts.Steps; tr.step++ {
		rng := rngs.New(opts.Seed, fmt.Sprintf("erae/step=%d", tr.step))
		for b := range seqs {
			seqs[b] = wins[rng.IntN(len(wins))]
		}
		w.load(sizes, seqs)
		w.forward(tr.p)
		var cands []candidate
		lambda := 0.0
		if tr.step >= opts.PretrainSteps {
			cands = selectCandidates(rw, w.probs, w.ids, sizes.Vocab, opts.K, rng)
			lambda = opts.LambdaEmbed
			for _, c := range cands {
				n++
				if rw.cosine(w.ids[c.pos], c.v) < RewardFloor {
					low++
				}
			}
		}
		l := lossGrad(w.probs, w.ids, sizes.Vocab, cands, opts.LambdaRecon, lambda)
		if cands != nil {
			minEmbed = min(minEmbed, l.Embed)
		}
		clear(g.All)
		w.backward(tr.p, g)
		if !tr.adam(g.All) {
			t.Fatalf("step %d: gradient not finite", tr.step)
		}
	}
	return minEmbed, float64(low) / float64(n)
}

// TestRewardBounded checks the reward's floor (the authors' clip of γ to [1e-5, 0.85]): every
// term of L_embed is γ·(−ln p) with γ ≥ RewardFloor > 0 and −ln p ≥ 0, so every batch's
// embedding loss of a reward training must be ≥ 0 — it is, on the reward test's tiny training
// (160 reward steps, centred cosine), although a third of the rated candidates have a cosine
// below the floor. The mutant, the same training with γ unbounded below (the floor at −∞, the
// code before the clip), reaches a negative embedding loss. Both runs are deterministic: no
// false-failure rate.
func TestRewardBounded(t *testing.T) {
	minEmbed, below := rewardLoop(t, RewardFloor)
	if minEmbed < 0 {
		t.Errorf("smallest batch embedding loss %.4g with γ ≥ %g: want ≥ 0", minEmbed, RewardFloor)
	}
	if below < 0.1 {
		t.Errorf("only %.3f of the candidates have a cosine below the floor: the test does not exercise it", below)
	}
	mutant, _ := rewardLoop(t, math.Inf(-1))
	if !(mutant < 0) {
		t.Errorf("mutant (γ unbounded below): smallest embedding loss %.4g, want < 0 (the test cannot tell the clip)", mutant)
	}
	t.Logf("smallest embedding loss %.4f (clipped), %.4f (mutant); %.3f of candidates below the floor", minEmbed, mutant, below)
	// And Train itself, whose curve holds the reward steps' mean losses.
	store, corpus := rewardData(t)
	if _, err := Train(context.Background(), corpus, store, rewardOptions(true, 0.5), "", 0, func(p Progress) {
		if p.Phase == "reward" && p.Embed < 0 {
			t.Errorf("step %d: embedding loss %.4g < 0", p.Step, p.Embed)
		}
	}); err != nil {
		t.Fatal(err)
	}
}

// releaseReference computes, by a full sort and the exponential mechanism written out
// (weights exp(ε·p/2) normalised, in float64), the four release diagnostics of Diagnose over
// the in-vocabulary positions of docs: the reference for TestDiagnoseReleaseSplit.
func releaseReference(m *Model, store *embeddings.Store, docs [][]string, eps float64) (topMass, sim, topSim, tailSim float64) {
	centered := newRewarder(wordRows(store, m.Words), store.Dim(), true)
	var n, tm, ts, rm, rs float64
	for _, d := range docs {
		for i, p := range m.Probabilities(d) {
			id, ok := m.index[d[i]]
			if !ok {
				continue
			}
			order := make([]int, len(p))
			for v := range order {
				order[v] = v
			}
			sort.SliceStable(order, func(a, b int) bool { return p[order[a]] > p[order[b]] })
			total := 0.0
			for _, x := range p {
				total += math.Exp(eps * x / 2)
			}
			for rank, v := range order {
				q := math.Exp(eps*p[v]/2) / total
				c := centered.cosine(id, int32(v))
				if rank < TopCandidates {
					tm, ts = tm+q, ts+q*c
				} else {
					rm, rs = rm+q, rs+q*c
				}
			}
			n++
		}
	}
	return tm / n, (ts + rs) / n, ts / tm, rs / rm
}

// TestDiagnoseReleaseSplit checks the exact release diagnostics (release_top5_mass and the
// expected centred cosine of the release, overall, among the top words and outside them)
// against the written-out reference on a trained model, at two ε. Deterministic (exact sums,
// tolerance 1e-9 for summation order). Mutant: the reference at scale ε instead of ε/2 (a
// mechanism that spends twice its budget) differs from Diagnose by more than 1e-3 on the mass,
// which the test asserts, so a Diagnose on the wrong scale fails. The two-stage sampler, which
// has no closed form here, reports none of them.
func TestDiagnoseReleaseSplit(t *testing.T) {
	store, corpus := rewardData(t)
	model, err := Train(context.Background(), corpus, store, rewardOptions(true, 0.5), "", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{10, 40} {
		mech := must(NewMechanism(model, eps, Stages{}, store))
		var n, mass, sim, topSim, tailSim float64
		for _, d := range corpus {
			diag := mech.Diagnose(d, d)
			rated := float64(len(d)) - diag["oov_tokens"]
			mass += diag["release_top5_mass"] * rated
			sim += diag["release_similarity_centered"] * rated
			topSim += diag["release_top5_similarity_centered"] * diag["release_top5_mass"] * rated
			tailSim += diag["release_tail_similarity_centered"] * (1 - diag["release_top5_mass"]) * rated
			n += rated
		}
		mass, sim = mass/n, sim/n
		topSim, tailSim = topSim/(mass*n), tailSim/((1-mass)*n)
		wantMass, wantSim, wantTop, wantTail := releaseReference(model, store, corpus, eps)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"release_top5_mass", mass, wantMass}, {"release_similarity_centered", sim, wantSim},
			{"release_top5_similarity_centered", topSim, wantTop}, {"release_tail_similarity_centered", tailSim, wantTail}} {
			if math.Abs(c.got-c.want) > 1e-9 {
				t.Errorf("ε = %g: %s %.12f, the reference gives %.12f", eps, c.name, c.got, c.want)
			}
		}
		if wrongMass, _, _, _ := releaseReference(model, store, corpus, 2*eps); math.Abs(wrongMass-mass) < 1e-3 {
			t.Errorf("ε = %g: the mass at scale ε (%.6f) is within 1e-3 of ε/2's (%.6f): the test could not tell the scales apart", eps, wrongMass, mass)
		}
	}
	two := must(NewMechanism(model, 10, Stages{Candidates: 3, CandidateEpsilon: 5}, store))
	if _, ok := two.Diagnose(corpus[0], corpus[0])["release_top5_mass"]; ok {
		t.Error("the two-stage sampler reported release_top5_mass, which it cannot compute exactly")
	}
}
