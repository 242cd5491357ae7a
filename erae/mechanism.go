package erae

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/mechanisms"
)

// MechanismOptions configure the erae mechanism.
type MechanismOptions struct {
	// Model is the path of a model file written by `dptext train erae` (relative to the
	// working directory). A model trained without the reward gives the paper's AE-DP ablation.
	Model string `toml:"model"`
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
// Privacy unit. The rating lies in [0, 1] for every input, so every position is ε-DP between any
// two documents of the same length l (every pair of texts adjacent, as in the paper), and the
// document is (ε·l)-DP by sequential composition (Theorem 1). Not covered: the length l (the
// output has the input's length), and the training data of the model and its word vectors,
// which must not contain the documents to protect (`dptext train erae` trains only on authors
// outside every evaluation set). Out-of-vocabulary input words are read as the unknown row; the
// output is always a vocabulary word.
type Mechanism struct {
	model   *Model
	epsilon float64
}

// NewMechanism returns ER-AE's sampling with ε per token over model.
func NewMechanism(model *Model, epsilon float64) (*Mechanism, error) {
	if model == nil {
		return nil, fmt.Errorf("erae: no model")
	}
	if err := mechanisms.ExponentialEpsilonRange.Check(epsilon); err != nil {
		return nil, fmt.Errorf("erae: %w", err)
	}
	return &Mechanism{model: model, epsilon: epsilon}, nil
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
// mechanism's output distribution over the model's words (Eq. 6).
func (e *Mechanism) LogProbabilities(doc []string) [][]float64 {
	rows := e.model.Probabilities(doc)
	for i, r := range rows {
		rows[i] = mechanisms.ExponentialLogProbabilities(r, e.epsilon/2)
	}
	return rows
}

// Words returns the output vocabulary (the rows of LogProbabilities).
func (e *Mechanism) Words() []string { return e.model.Words }

// Apply samples one word per token of doc (Eq. 7).
func (e *Mechanism) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	for i, r := range e.model.Probabilities(doc) {
		out[i] = e.model.Words[mechanisms.SampleCumulative(rng, mechanisms.ExponentialCumulative(r, e.epsilon/2))]
	}
	return out
}

// Guarantee is pure (ε·l)-DP for a document of l tokens (bound "eps_l").
func (e *Mechanism) Guarantee(doc []string) mechanisms.Guarantee {
	l := float64(len(doc))
	return mechanisms.Guarantee{Kind: mechanisms.KindPure, Epsilon: e.epsilon * l, Bounds: map[string]float64{"eps_l": e.epsilon * l}}
}

// Diagnose reports "unchanged_share" (positions whose word was kept) and "original_mass" (the
// mean probability the generator gives the original token, 0 for tokens outside its
// vocabulary).
func (e *Mechanism) Diagnose(original, private []string) map[string]float64 {
	same := 0
	for i := range min(len(original), len(private)) {
		if original[i] == private[i] {
			same++
		}
	}
	mass := 0.0
	for i, r := range e.model.Probabilities(original) {
		if id, ok := e.model.index[original[i]]; ok {
			mass += r[id]
		}
	}
	n := math.Max(1, float64(len(original)))
	return map[string]float64{"unchanged_share": float64(same) / n, "original_mass": mass / n}
}
