// Package mechanisms rewrites token sequences under differential privacy. It is a pure library:
// no files, no configuration formats. Every mechanism draws its randomness only from the
// generator it is handed, so equal generator states give equal outputs.
package mechanisms

import (
	"fmt"
	"math/rand/v2"
)

// A Mechanism privatises one document (a normalised token sequence). Parameters are validated
// by the constructor, so Apply cannot fail.
type Mechanism interface {
	// Apply returns the privatised tokens of doc. All randomness comes from rng.
	Apply(rng *rand.Rand, doc []string) []string
	// Guarantee states the privacy guarantee Apply gives for doc.
	Guarantee(doc []string) Guarantee
}

// A Diagnoser reports per-document diagnostics of a mechanism's effect (for example the share
// of words unchanged, or how many tokens were out of vocabulary). Keys are metric names as they
// appear in results.csv; values are counts or per-document averages, as the name says.
type Diagnoser interface {
	Diagnose(original, private []string) map[string]float64
}

// Guarantee kinds.
const (
	// KindNone: no privacy (the identity mechanism, or a heuristic such as PII scrubbing).
	KindNone = "none"
	// KindMetric: Epsilon·d(x, x')-privacy for the metric named in Metric; the bound on the
	// probability ratio of any output for documents x and x' is exp(Epsilon·d(x, x')).
	KindMetric = "metric"
	// KindPure: Epsilon-differential privacy between any two documents of the stated length.
	KindPure = "pure"
)

// Guarantee is the privacy a mechanism gives one document.
type Guarantee struct {
	Kind string
	// Epsilon is the document-level budget: ε·N for a metric mechanism over bags of N words
	// (to be multiplied by the distance Metric), ε·l or ℓ·n for a pure one.
	Epsilon float64
	// Metric names the distance of a metric guarantee, e.g. "EMD" (Earth Mover's distance of
	// equal-size bags under Euclidean word distance). Empty for other kinds.
	Metric string
	// Bounds holds alternative or auxiliary bounds by name (e.g. SynTF's "eps_n",
	// "eps_ln_eta_n" and "ell_n"); Epsilon is the tightest of them.
	Bounds map[string]float64
}

// None is the identity mechanism: the baseline row "none" of every table. With Bag set it
// releases the original words in uniformly shuffled order (the bag presentation of the original,
// drawn from the generator), so tables can separate the effect of losing word order from the
// effect of a bag mechanism's noise.
type None struct {
	// Bag shuffles the output (option order = "bag"); false keeps the original order.
	Bag bool
}

// NewNone returns the identity mechanism releasing in order "keep" (the original) or "bag"
// (shuffled).
func NewNone(order string) (None, error) {
	switch order {
	case OrderKeep, "":
		return None{}, nil
	case OrderBag:
		return None{Bag: true}, nil
	}
	return None{}, fmt.Errorf("none: order = %q: want %q or %q", order, OrderBag, OrderKeep)
}

// Apply returns a copy of doc, shuffled uniformly with rng when n.Bag is set.
func (n None) Apply(rng *rand.Rand, doc []string) []string {
	out := append([]string(nil), doc...)
	if n.Bag {
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

// Guarantee reports no privacy.
func (None) Guarantee([]string) Guarantee { return Guarantee{Kind: KindNone} }

// PointMass is true: every word is released as itself, so the output distribution of one word
// is a point mass and two different words are told apart with certainty (an infinite
// log-ratio, which no finite claim covers).
func (None) PointMass() bool { return true }

// IndependentPositions is true for order "keep" (every position releases its own word) and
// false for order "bag".
func (n None) IndependentPositions() bool { return !n.Bag }
