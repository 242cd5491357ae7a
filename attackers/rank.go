package attackers

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Ranker is an attacker that scores every candidate author of every document, so that a
// caller can say how high it ranks the true author and not only whether it named it.
// PredictRanked returns the answers Predict gives with the same rng, and scores[i][j], the
// attacker's score of candidates[j] for document i (higher is more likely). It panics before
// a successful Fit.
type Ranker interface {
	PredictRanked(rng *rand.Rand, docs [][]string) (authors, candidates []string, scores [][]float64)
}

// ReciprocalRank is the reciprocal rank of the true author among the candidates scored
// scores, candidates naming them; a true author the attacker does not score (a candidate it
// dropped) scores −∞, below every scored one. Ties are broken at random: the value is the
// expected reciprocal rank over uniform orders of the tied candidates, (1/t)·Σ_{k=g+1}^{g+t}
// 1/k for g candidates scored above the true author and t tied with it (itself included). It
// is never above what an attacker that put the true author first among its ties would get,
// and an attacker that scores every candidate alike gets H_n/n, the value of a uniform guess
// (ChanceReciprocalRank). A NaN score is an error.
func ReciprocalRank(candidates []string, scores []float64, truth string, all int) (float64, error) {
	if len(candidates) != len(scores) {
		return 0, fmt.Errorf("reciprocal rank: %d candidates and %d scores", len(candidates), len(scores))
	}
	if all < len(candidates) {
		return 0, fmt.Errorf("reciprocal rank: %d candidates scored of %d in all", len(candidates), all)
	}
	own := math.Inf(-1)
	for j, c := range candidates {
		if math.IsNaN(scores[j]) {
			return 0, fmt.Errorf("reciprocal rank: candidate %s has score NaN", c)
		}
		if c == truth {
			own = scores[j]
		}
	}
	above, tied := 0, 0
	for _, s := range scores {
		switch {
		case s > own:
			above++
		case s == own:
			tied++
		}
	}
	if math.IsInf(own, -1) {
		// Every unscored candidate (the true author too when it is one) shares the bottom,
		// −∞, with the scored candidates at −∞.
		tied += all - len(candidates)
	}
	if tied == 0 {
		return 0, fmt.Errorf("reciprocal rank: true author %q not among the %d candidates in all", truth, all)
	}
	sum := 0.0
	for k := above + 1; k <= above+tied; k++ {
		sum += 1 / float64(k)
	}
	return sum / float64(tied), nil
}

// ChanceReciprocalRank is the expected reciprocal rank of the true author under a uniform
// guess among n candidates: H_n/n = (1/n)·Σ_{k=1}^{n} 1/k.
func ChanceReciprocalRank(n int) float64 {
	h := 0.0
	for k := 1; k <= n; k++ {
		h += 1 / float64(k)
	}
	return h / float64(n)
}
