package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/mechanisms"
)

// Random replaces every token by a word drawn uniformly from the vocabulary, independently per
// position: ER-AE's Random-R baseline (SPEC §4.4). The output has the input's length and nothing
// else of it, so the mechanism is 0-DP between documents of the same length. It has no options.
type Random struct {
	vocabulary []string
}

// NewRandom builds the uniform replacement baseline over vocabulary (e.g. the embedding store's
// words).
func NewRandom(vocabulary []string) (*Random, error) {
	if len(vocabulary) == 0 {
		return nil, fmt.Errorf("random: empty vocabulary: want at least one word")
	}
	return &Random{vocabulary: vocabulary}, nil
}

// Apply returns len(doc) words drawn uniformly from the vocabulary.
func (r *Random) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	for i := range out {
		out[i] = r.vocabulary[rng.IntN(len(r.vocabulary))]
	}
	return out
}

// Guarantee is pure 0-DP: perfect privacy between documents of the same length.
func (r *Random) Guarantee([]string) mechanisms.Guarantee {
	return mechanisms.Guarantee{Kind: mechanisms.KindPure, Epsilon: 0}
}

// IndependentPositions is true: every position is drawn on its own.
func (r *Random) IndependentPositions() bool { return true }

// PositionWise is true: every position is released from its own word, with draws of its own,
// in place (mechanisms.PositionWise).
func (r *Random) PositionWise() bool { return true }

// LogProbabilities returns the uniform distribution over the vocabulary, the output
// distribution of every position whatever its word (in logarithms).
func (r *Random) LogProbabilities(string) ([]float64, bool) {
	out := make([]float64, len(r.vocabulary))
	for i := range out {
		out[i] = -math.Log(float64(len(out)))
	}
	return out, true
}
