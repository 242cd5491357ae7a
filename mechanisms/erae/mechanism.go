package erae

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/mechanisms"
	"dptext/mechanisms/internal/twostage"
)

// MechanismOptions configure the erae and ae-dp mechanisms.
type MechanismOptions struct {
	// Model is the path of a model file written by `dptext train erae` (in a config, relative
	// to the config's folder; on the command line, to the working directory): trained with the
	// embedding reward for erae, with --no-reward for ae-dp.
	Model string `toml:"model"`
	Stages
}

// Stages select dptext's own two-stage candidate selection (as in expmech; neither the paper
// nor the authors' code has it).
type Stages struct {
	// Candidates is k of the two-stage variant: first k distinct candidates with
	// CandidateEpsilon, then one of them with ε. 0 (default) samples from the whole vocabulary
	// in one stage.
	Candidates int `toml:"candidates"`
	// CandidateEpsilon is ε₁ of the two-stage variant (required, > 0, when Candidates > 0).
	CandidateEpsilon float64 `toml:"candidate_epsilon"`
}

// Mechanism is ER-AE's differentially-private text sampling (Bo, Ding, Fung and Iqbal,
// "Differentially-private Text Sampling", Eq. 5–7, Theorem 1, Algorithm 1). The document is cut
// into consecutive windows of the model's training length; the encoder reads a window, and the
// generator, fed the previous original token at every position (Eq. 2), gives Pr[x̃_i = v]
// (Eq. 3). Position i of window x then releases v with
//
//	P(v) = exp(ε·ρ_i(x, v)/(2Δ)) / Σ_v′ exp(ε·ρ_i(x, v′)/(2Δ)),   ρ_i(x, v) = Pr[x̃_i = v] ∈ [0, 1],  Δ = 1,
//
// the exponential mechanism with the generator's probability as rating (Eq. 5–6), independently
// at every position given the input.
//
// Two-stage variant (Stages.Candidates = k > 0; dptext's own, not the paper's, which samples in
// one stage, nor the authors' code's "two-set" sampler): first k
// distinct candidates are drawn by k successive exponential mechanisms without replacement over
// the same rating, each with ε₁/k (in one pass by the Gumbel top-k trick: the k largest of
// ε₁·ρ_i(x, v)/(2k) + G_v, G_v independent standard Gumbel variates), which is ε₁-DP by
// sequential composition; then one candidate is drawn by the exponential mechanism with ε over
// the candidates' ratings. The per-token budget is ε₁ + ε.
//
// Privacy unit. The rating lies in [0, 1] for every input, so every position is ε-DP (ε₁ + ε
// for two stages) between any two documents of the same length l (every pair of texts adjacent,
// as in the paper), and the document is (ε·l)-DP by sequential composition (Theorem 1; (ε₁+ε)·l
// for two stages). Not covered: the length l (the output has the input's length), and the
// training data of the model and its word vectors, which must not contain the documents to
// protect (`dptext train erae` trains only on authors outside every evaluation set).
// Out-of-vocabulary input words are read as the unknown row; the output is always a vocabulary
// word.
type Mechanism struct {
	model   *Model
	epsilon float64
	stages  Stages
	// similarity and centered rate the generator's top candidates by the configured word
	// vectors, plain and centred (nil: the top-5 similarity diagnostics are not reported).
	similarity, centered *rewarder
}

// NewMechanism returns ER-AE's sampling with ε per token (of the second stage when
// stages.Candidates > 0) over model. vectors, when not nil, are the configured word vectors
// (those the model was trained with) by which Diagnose rates the generator's top candidates;
// they do not change the release.
func NewMechanism(model *Model, epsilon float64, stages Stages, vectors *embeddings.Store) (*Mechanism, error) {
	if model == nil {
		return nil, fmt.Errorf("erae: no model")
	}
	if err := mechanisms.ExponentialEpsilonRange.Check(epsilon); err != nil {
		return nil, fmt.Errorf("erae: %w", err)
	}
	if stages.Candidates < 0 || stages.Candidates > model.Sizes.Vocab {
		return nil, fmt.Errorf("erae: candidates = %d: want 0 (one stage) or 1 to %d (the model's vocabulary size)", stages.Candidates, model.Sizes.Vocab)
	}
	if stages.Candidates > 0 && !(stages.CandidateEpsilon > 0 && !math.IsInf(stages.CandidateEpsilon, 0)) {
		return nil, fmt.Errorf("erae: candidate_epsilon = %g: want a finite value > 0 when candidates > 0", stages.CandidateEpsilon)
	}
	if stages.Candidates == 0 && stages.CandidateEpsilon != 0 {
		return nil, fmt.Errorf("erae: candidate_epsilon = %g needs candidates > 0 (the two-stage variant)", stages.CandidateEpsilon)
	}
	e := &Mechanism{model: model, epsilon: epsilon, stages: stages}
	if vectors != nil {
		if err := model.VectorsCover(vectors); err != nil {
			return nil, err
		}
		sims := wordRows(vectors, model.Words)
		e.similarity = newRewarder(sims, vectors.Dim(), false)
		e.centered = newRewarder(sims, vectors.Dim(), true)
	}
	return e, nil
}

// VectorsCover returns nil when store has the model's dimension and a vector for every word of
// its vocabulary (as the vectors it was trained with do), else an error naming the first
// mismatch.
func (m *Model) VectorsCover(store *embeddings.Store) error {
	if store.Dim() != m.Sizes.Embed {
		return fmt.Errorf("erae: the word vectors have %d dimensions, the model %d: use the vectors the model was trained with", store.Dim(), m.Sizes.Embed)
	}
	for _, w := range m.Words {
		if _, ok := store.Lookup(w); !ok {
			return fmt.Errorf("erae: the model's word %q has no vector in the given embeddings: use the vectors the model was trained with", w)
		}
	}
	return nil
}

// RewardTrained says whether the model was trained with the embedding reward: the reward was
// on, with a positive weight, for at least one step after pre-training.
func (m *Model) RewardTrained() bool {
	return m.Options.Reward && m.Options.LambdaEmbed > 0 && m.Options.Steps > m.Options.PretrainSteps
}

// CheckKind returns an error naming path when the model read from it was not trained the way
// the mechanism needs: with the embedding reward (reward, the erae mechanism) or without it (the
// ae-dp mechanism, `dptext train erae --no-reward`).
func (m *Model) CheckKind(path string, reward bool) error {
	switch got := m.RewardTrained(); {
	case reward && !got:
		return fmt.Errorf("erae: model %s was trained without the embedding reward (an AE-DP model, `dptext train erae --no-reward`, or lambda_embed = 0, or no step after pretrain_steps): use mechanism \"ae-dp\" for it, or train an ER-AE model without --no-reward", path)
	case !reward && got:
		return fmt.Errorf("ae-dp: model %s was trained with the embedding reward (an ER-AE model): use mechanism \"erae\" for it, or train an AE-DP model with `dptext train erae --no-reward`", path)
	}
	return nil
}

// Probabilities returns the generator's distribution Pr[x̃_i = v] (Eq. 3) at every position of
// doc, windows of the model's length read separately.
func (m *Model) Probabilities(doc []string) [][]float64 {
	out := make([][]float64, 0, len(doc))
	L := max(1, m.Options.Length)
	for start := 0; start < len(doc); start += L {
		win := doc[start:min(start+L, len(doc))]
		w := newBatch[float32](m.Sizes, 1, len(win))
		w.load(m.Sizes, [][]int32{encode(m.index, m.Sizes.Vocab, win)})
		w.forward(m.p)
		V := m.Sizes.Vocab
		for t := range win {
			row := make([]float64, V)
			for v, p := range w.probs[t*V : (t+1)*V] {
				row[v] = float64(p)
			}
			out = append(out, row)
		}
	}
	return out
}

// LogProbabilities returns, for every position of doc, the exact natural logarithms of the
// mechanism's output distribution over the model's words (Eq. 6), and true; the two-stage
// variant has no closed form here and returns nil, false.
func (e *Mechanism) LogProbabilities(doc []string) ([][]float64, bool) {
	if e.stages.Candidates > 0 {
		return nil, false
	}
	rows := e.model.Probabilities(doc)
	for i, r := range rows {
		rows[i] = mechanisms.ExponentialLogProbabilities(r, e.epsilon/2)
	}
	return rows, true
}

// StageRatings are, for the two-stage variant, the generator's probabilities over the output
// rows for the one-word document [word], which both stages draw with (mechanisms.TwoStage);
// false for one stage.
func (e *Mechanism) StageRatings(word string) ([]float64, bool) {
	if e.stages.Candidates == 0 {
		return nil, false
	}
	return e.model.Probabilities([]string{word})[0], true
}

// StageBudgets are k, ε₁ and ε of the two-stage variant (k = 0 for one stage).
func (e *Mechanism) StageBudgets() (k int, candidateEpsilon, epsilon float64) {
	return e.stages.Candidates, e.stages.CandidateEpsilon, e.epsilon
}

// DrawStages draws the one-word document [word] from rng exactly as Apply does (the same
// draws, so the same output for a generator in the same state) and returns the first stage's
// shortlist besides the released row (mechanisms.TwoStage); false for one stage.
func (e *Mechanism) DrawStages(rng *rand.Rand, word string) (shortlist []int, released int, ok bool) {
	r, ok := e.StageRatings(word)
	if !ok {
		return nil, 0, false
	}
	shortlist, released = e.newStageScratch().Draw(rng, r, e.stages.CandidateEpsilon, e.epsilon)
	return shortlist, released, true
}

// Epsilon is ε, the budget of the (second) stage.
func (e *Mechanism) Epsilon() float64 { return e.epsilon }

// ClaimEpsilon is the per-token budget of the guarantee: ε, or ε₁ + ε for two stages.
func (e *Mechanism) ClaimEpsilon() float64 {
	if e.stages.Candidates > 0 {
		return e.stages.CandidateEpsilon + e.epsilon
	}
	return e.epsilon
}

// RewritesStopwords says whether the model was trained on text with its function words
// (TrainOptions.FunctionWords): a released text then has its stopwords rewritten too
// (mechanisms.StopwordRewriter). The evaluation protocol gives every mechanism the normalised
// words, so there such a model reads windows without the function words it was trained with.
func (e *Mechanism) RewritesStopwords() bool { return e.model.Options.FunctionWords }

// Words returns the output vocabulary (the rows of LogProbabilities).
func (e *Mechanism) Words() []string { return e.model.Words }

// Apply samples one word per token of doc (Eq. 7), through the two stages when
// Stages.Candidates > 0.
func (e *Mechanism) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	s := e.newStageScratch()
	for i, r := range e.model.Probabilities(doc) {
		out[i] = e.model.Words[e.sample(rng, r, s)]
	}
	return out
}

// newStageScratch returns the two-stage sampler's scratch space (nil for one stage).
func (e *Mechanism) newStageScratch() *twostage.Sampler {
	if e.stages.Candidates == 0 {
		return nil
	}
	return twostage.NewSampler(e.stages.Candidates)
}

// sample draws the released row for one position with ratings r (the generator's
// probabilities): one exponential mechanism with ε, or the two stages.
func (e *Mechanism) sample(rng *rand.Rand, r []float64, s *twostage.Sampler) int {
	if s == nil {
		return mechanisms.SampleCumulative(rng, mechanisms.ExponentialCumulative(r, e.epsilon/2))
	}
	return s.Sample(rng, r, e.stages.CandidateEpsilon, e.epsilon)
}

// Guarantee is pure (ε·l)-DP for a document of l tokens (bound "eps_l"); for two stages
// ((ε₁+ε)·l)-DP, with the stages' shares "candidate_eps_l" (ε₁·l) and "token_eps_l" (ε·l).
func (e *Mechanism) Guarantee(doc []string) mechanisms.Guarantee {
	l := float64(len(doc))
	b := e.epsilon
	if e.stages.Candidates > 0 {
		b += e.stages.CandidateEpsilon
	}
	g := mechanisms.Guarantee{Kind: mechanisms.KindPure, Epsilon: b * l, Bounds: map[string]float64{"eps_l": b * l}}
	if e.stages.Candidates > 0 {
		g.Bounds["candidate_eps_l"] = e.stages.CandidateEpsilon * l
		g.Bounds["token_eps_l"] = e.epsilon * l
	}
	return g
}

// Diagnose reports "unchanged_share" (positions whose word was kept), "original_mass" (the
// mean probability the generator gives the original token, 0 for tokens outside its
// vocabulary), "oov_tokens" (the tokens outside the model's vocabulary, which the output can
// never keep), "released_top5_share" (positions whose released word is one of the generator's
// TopCandidates most probable words there) and, when the mechanism has the word vectors, two
// measures of what the embedding reward is meant to raise (the paper's Tables 2 and 3): over
// the tokens inside the vocabulary, the mean cosine between the original word's vector and those
// of the generator's TopCandidates most probable words (the original itself counts when it is
// among them), "top5_similarity" by the plain cosine of Eq. 9 and "top5_similarity_centered"
// with the vocabulary's mean vector subtracted first. The plain cosine of two unrelated words is
// not 0 but whatever the vectors share (0.23 on average for the default GloVe vectors, 0.41
// between "would" and any word), so only the centred one reads 0 for unrelated candidates.
//
// For the one-stage sampler with word vectors, four exact (not sampled) values of the release
// distribution exp(ε·p/2)/Σ at the same tokens explain what the released words keep:
// "release_top5_mass", the probability that the released word is one of the generator's
// TopCandidates most probable words; "release_similarity_centered", the expected centred
// cosine between the released word and the original; and that expectation split into
// "release_top5_similarity_centered" (given a release among the top words) and
// "release_tail_similarity_centered" (given a release outside them). The expectation is
// top5_mass × top5 + (1 − top5_mass) × tail at each token, so a model whose releases come less
// often from its top words loses meaning unless its top words are closer by enough.
func (e *Mechanism) Diagnose(original, private []string) map[string]float64 {
	same := 0
	for i := range min(len(original), len(private)) {
		if original[i] == private[i] {
			same++
		}
	}
	mass, oov, sim, centered, rated, inTop := 0.0, 0, 0.0, 0.0, 0, 0
	exact := e.similarity != nil && e.stages.Candidates == 0
	var release releaseSplit
	for i, r := range e.model.Probabilities(original) {
		top := topRows(r, TopCandidates)
		if i < len(private) {
			for _, v := range top {
				if e.model.Words[v] == private[i] {
					inTop++
					break
				}
			}
		}
		id, ok := e.model.index[original[i]]
		if !ok {
			oov++
			continue
		}
		mass += r[id]
		if e.similarity != nil {
			for _, v := range top {
				sim += e.similarity.cosine(id, int32(v)) / TopCandidates
				centered += e.centered.cosine(id, int32(v)) / TopCandidates
			}
			rated++
		}
		if exact {
			release.add(mechanisms.ExponentialLogProbabilities(r, e.epsilon/2), top, func(v int) float64 {
				return e.centered.cosine(id, int32(v))
			})
		}
	}
	n := math.Max(1, float64(len(original)))
	out := map[string]float64{"unchanged_share": float64(same) / n, "original_mass": mass / n, "oov_tokens": float64(oov),
		"released_top5_share": float64(inTop) / n}
	if e.similarity != nil && rated > 0 {
		out["top5_similarity"] = sim / float64(rated)
		out["top5_similarity_centered"] = centered / float64(rated)
	}
	if exact && rated > 0 {
		release.report(out, rated)
	}
	return out
}

// releaseSplit sums, over the rated tokens, the exact probability that the release is among the
// generator's top words and the expected centred cosine of the release to the original, inside
// and outside the top words.
type releaseSplit struct {
	topMass, topSim, tailMass, tailSim float64
}

// add accumulates one token: logp is the release distribution over the vocabulary, top the
// generator's most probable rows, cosine the centred cosine of a row to the original word.
func (s *releaseSplit) add(logp []float64, top []int, cosine func(v int) float64) {
	inTop := make(map[int]bool, len(top))
	for _, v := range top {
		inTop[v] = true
	}
	for v, l := range logp {
		p := math.Exp(l)
		if p == 0 {
			continue
		}
		if inTop[v] {
			s.topMass += p
			s.topSim += p * cosine(v)
		} else {
			s.tailMass += p
			s.tailSim += p * cosine(v)
		}
	}
}

// report writes the four release diagnostics of Diagnose, as means over rated tokens.
func (s *releaseSplit) report(out map[string]float64, rated int) {
	n := float64(rated)
	out["release_top5_mass"] = s.topMass / n
	out["release_similarity_centered"] = (s.topSim + s.tailSim) / n
	if s.topMass > 0 {
		out["release_top5_similarity_centered"] = s.topSim / s.topMass
	}
	if s.tailMass > 0 {
		out["release_tail_similarity_centered"] = s.tailSim / s.tailMass
	}
}

// TopCandidates is the number of most probable words top5_similarity rates (the paper's k = 5).
const TopCandidates = 5

// topRows returns the rows of the k largest values of r, largest first (ties: the smaller row).
func topRows(r []float64, k int) []int {
	top := make([]int, 0, k+1)
	for v, p := range r {
		if len(top) == k && p <= r[top[k-1]] {
			continue
		}
		at := len(top)
		for at > 0 && p > r[top[at-1]] {
			at--
		}
		top = append(top, 0)
		copy(top[at+1:], top[at:])
		top[at] = v
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}
