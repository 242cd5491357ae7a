// Package mechanisms holds what every privacy mechanism of dptext shares: the Mechanism
// contract and its optional contracts (Diagnoser, PairBounder, FallibleMechanism,
// PassThrougher, Claimer, BatchMechanism, DrawSharer, NoiseStep, NearestDecoder, TwoStage), the Guarantee a release states (its kinds,
// metric names and Describe), the release orders, the ε range check (EpsilonRange), the release
// of a text (PrivatizeText), the exponential mechanism's probabilities and sampler that the
// sampling families share, and the identity baseline None.
//
// The mechanisms live in one package per family, none of which this package imports:
// metricdp (noise on a word's vector, decoded to the nearest word: EMD, CMP, Mahalanobis,
// Vickrey), expmech (exponential-mechanism token samplers: expmech, SanText, CusText, TEM, the
// truncated Gumbel mechanism, and the uniform Random baseline), syntf (SynTF's private
// term-frequency vectors) and scrub (PII scrubbing, no guarantee). All are pure libraries: no
// files, no configuration formats. Every mechanism draws its randomness only from the generator
// it is handed, so equal generator states give equal outputs.
package mechanisms

import (
	"fmt"
	"math/rand/v2"

	"dptext/embeddings"
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

// A PairBounder states the bound of its guarantee between two given documents exactly, where
// Guarantee can only give the per-document budget of a metric guarantee.
type PairBounder interface {
	// Epsilon is the mechanism's per-unit ε.
	Epsilon() float64
	// PairDistance returns D(x, y) ≥ 0 such that, for every output o,
	// |ln P(o | x) − ln P(o | y)| ≤ Epsilon()·D(x, y); +Inf when no finite bound holds (for
	// example two documents whose out-of-vocabulary words, passed through unchanged, differ).
	// D does not depend on ε.
	PairDistance(x, y []string) float64
	// PairDistanceKey identifies the function PairDistance computes (the same for every ε of
	// one configuration), so callers may cache distances across an ε grid. It is meaningful
	// only within one process.
	PairDistanceKey() string
}

// A FallibleMechanism can report that it could not privatise a document (for example because
// its noise is not representable) instead of releasing a wrong output.
type FallibleMechanism interface {
	Mechanism
	// TryApply is Apply with an error instead of an output when privatising fails.
	TryApply(rng *rand.Rand, doc []string) ([]string, error)
}

// ApplyOrPanic is the Apply of a mechanism with a TryApply whose constructor rules failure out:
// TryApply's output, or a panic with its error should it ever fail, rather than a wrong output.
// Callers that prefer the error call TryApply (or Privatize).
func ApplyOrPanic(m interface {
	TryApply(rng *rand.Rand, doc []string) ([]string, error)
}, rng *rand.Rand, doc []string) []string {
	out, err := m.TryApply(rng, doc)
	if err != nil {
		panic(err)
	}
	return out
}

// Privatize applies m to doc with rng, through TryApply when m is a FallibleMechanism.
func Privatize(m Mechanism, rng *rand.Rand, doc []string) ([]string, error) {
	if f, ok := m.(FallibleMechanism); ok {
		return f.TryApply(rng, doc)
	}
	return m.Apply(rng, doc), nil
}

// A PassThrougher names the words of a document that its mechanism releases unchanged and
// outside its guarantee (out-of-vocabulary words under oov = "keep").
type PassThrougher interface {
	PassedThrough(doc []string) []string
}

// UnknownWords returns the distinct words of doc outside store, in order of first occurrence:
// what a PassThrougher whose out-of-vocabulary words are kept releases unchanged.
func UnknownWords(store *embeddings.Store, doc []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range doc {
		if _, ok := store.Lookup(w); !ok && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// A Claimer states the ε per claim unit its guarantee is made of, where that differs from the
// ε it was built with: the two-stage samplers claim ε₁ + ε per word (both stages compose).
// The audit tests this value, so that the claim audited is the claim printed.
type Claimer interface {
	ClaimEpsilon() float64
}

// A BatchMechanism privatises many documents in one call, document i with generator rngs[i],
// and returns exactly what Apply(rngs[i], docs[i]) returns for each — the same draws from the
// same generators — only faster, because work that is a pure function of a word (a sampler's
// row over the vocabulary) is done once for every document instead of once per document.
type BatchMechanism interface {
	ApplyBatch(rngs []*rand.Rand, docs [][]string) [][]string
}

// A FallibleBatchMechanism is a BatchMechanism whose privatising can fail (FallibleMechanism):
// TryApplyBatch returns what TryApply(rngs[i], docs[i]) returns for each document, or the
// first error, naming the document. The noise-then-decode mechanisms decode every document's
// noisy vectors together, which makes many short documents (the audit's and the
// distinguishing game's) as cheap per word as one long one.
type FallibleBatchMechanism interface {
	TryApplyBatch(rngs []*rand.Rand, docs [][]string) ([][]string, error)
}

// An InTurnDrawer is a batch mechanism whose batch path makes every draw of document i from
// rngs[i] at document i's turn, before anything of a later document is drawn and without
// reading what an earlier one released: a batch whose generators are one generator repeated then
// releases exactly what Apply on each document in turn on that generator releases (the audit's
// distinguishing games release their runs so).
type InTurnDrawer interface {
	DrawsInTurn() bool
}

// PrivatizeBatch privatises docs[i] with rngs[i] for every i: through TryApplyBatch or
// ApplyBatch when m is a FallibleBatchMechanism or a BatchMechanism (the outputs are those of
// Privatize on each document in turn), else with Privatize on each.
func PrivatizeBatch(m Mechanism, rngs []*rand.Rand, docs [][]string) ([][]string, error) {
	if len(rngs) != len(docs) {
		return nil, fmt.Errorf("privatize: %d generators for %d documents", len(rngs), len(docs))
	}
	if b, ok := m.(FallibleBatchMechanism); ok {
		return b.TryApplyBatch(rngs, docs)
	}
	if b, ok := m.(BatchMechanism); ok {
		return b.ApplyBatch(rngs, docs), nil
	}
	out := make([][]string, len(docs))
	for i, d := range docs {
		p, err := Privatize(m, rngs[i], d)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		out[i] = p
	}
	return out, nil
}

// A DrawSharer is a mechanism whose release is a function of random draws that other
// configurations of the same mechanism share: mechanisms with equal DrawKey, handed generators
// in equal states for the same document, draw the same (for EMD, the same noisy vectors and
// decoded words) and differ only in what they release from those draws (EMD's
// out-of-vocabulary policies "keep" and "drop"). A caller holding several of them draws once
// and releases each one's output from the same draws (common random numbers), so their
// results are a paired comparison and the drawing is done once.
//
// Apply(rng, doc) must equal Release(rng, doc, d) with d = Draw(rng, doc) on the same rng: the
// release continues the generator where the draws left it (a caller sharing draws hands each
// Release a generator in the state Draw left).
type DrawSharer interface {
	// DrawKey identifies what Draw draws from (mechanism, vocabulary, ε, which tokens get
	// noise); it is meaningful only within one process.
	DrawKey() string
	// Draw makes the draws of doc from rng.
	Draw(rng *rand.Rand, doc []string) (Draws, error)
	// Release returns the output for doc from draws d made by a mechanism of the same
	// DrawKey, drawing what else it needs (a release order) from rng.
	Release(rng *rand.Rand, doc []string, d Draws) ([]string, error)
}

// A PositionWise mechanism releases a document position by position: its output has the
// input's length, and the word at position i is drawn from the input word at i alone, with
// randomness independent of every other position's. A release of x is then, at the positions
// where x and x′ agree, also a draw of what x′ releases there, so a release of x′ can be made
// from one of x by redrawing only the positions where they differ (the distinguishing game's
// coupling, package distinguish). Mechanisms that shuffle their output (order "bag"), drop
// words or read a word's neighbours say false.
type PositionWise interface {
	// PositionWise reports whether this configuration of the mechanism releases position by
	// position.
	PositionWise() bool
}

// A BatchDrawSharer is a DrawSharer that makes the draws of many documents in one call, document
// i with generator rngs[i]: each element, and the state each generator is left in, is what
// Draw(rngs[i], docs[i]) gives.
type BatchDrawSharer interface {
	DrawBatch(rngs []*rand.Rand, docs [][]string) ([]Draws, error)
}

// Draws are the random draws of one document made by a DrawSharer, opaque to its callers and
// read only (several releases may read them at once).
type Draws any

// A NoiseStep is a mechanism that releases, for every privatised word w, a function of the noisy
// vector z = φ(w) + noise alone (decoding, and any further choice made with randomness that does
// not depend on w, is post-processing). It exposes the noise step so that an audit can test it
// against the density its claim requires: with W the whitening of the claimed metric
// (d(w, w′) = ‖W(φ(w) − φ(w′))‖ per word), a noise density ∝ exp(−ε‖W(z − φ(w))‖) makes every
// release ε·d-private, so checking the drawn noise checks the claim (radius of W(z − φ(w))
// Gamma(n, 1/ε), its direction uniform on the sphere). EMD, CMP, Mahalanobis and Vickrey
// implement it.
type NoiseStep interface {
	// NoisyVectors draws the noisy vectors z of k copies of word (row-major, k × dimension) with
	// the code Apply decodes from, from rng; an error when word is not privatised.
	NoisyVectors(rng *rand.Rand, word string, k int) ([]float64, error)
	// WordVector is φ(word), false when the mechanism does not privatise word by its own vector.
	WordVector(word string) ([]float32, bool)
	// Whiten writes W·v into dst (both of the vectors' dimension): the identity for Euclidean
	// noise, Σ′^{−1/2} for Mahalanobis noise.
	Whiten(dst, v []float64)
}

// A NearestDecoder is a NoiseStep that states how its release decodes a noisy vector, so that an
// audit can re-decode every draw with a search of its own: the word released for a privatised
// word is one of the NearestChoices() nearest words of DecodeStore() to its noisy vector z
// (Euclidean distance, ties to the lower row) — the nearest (1: EMD, CMP, Mahalanobis), or the
// nearest or the second nearest by a draw that depends on z alone (2: Vickrey). A release that
// is anything else reads more than z, and its claim, resting on post-processing, is unproven.
type NearestDecoder interface {
	NoiseStep
	// DecodeStore is the vocabulary the noisy vectors are decoded into (rows in rank order).
	DecodeStore() *embeddings.Store
	// NearestChoices is how many of the nearest words a release chooses among (1 or 2).
	NearestChoices() int
}

// A TwoStage mechanism draws each privatised word in two stages (expmech with candidates = k >
// 0): a shortlist of k distinct rows by k successive exponential mechanisms without replacement
// over ratings ρ(x, ·) ∈ [0, 1], each at scale ε₁/(2k) (ε₁/k-DP, so ε₁-DP by sequential
// composition), then one row of the shortlist by the exponential mechanism at scale ε/2 (ε-DP
// for any shortlist): ε₁ + ε per word. Its release has no closed-form distribution, so it
// exposes the stages for an audit to test each against its own distribution.
type TwoStage interface {
	// StageRatings are ρ(word, v) over the output rows for the one-word document [word], false
	// when the stages do not apply to it.
	StageRatings(word string) ([]float64, bool)
	// StageBudgets are k, ε₁ and ε.
	StageBudgets() (k int, candidateEpsilon, epsilon float64)
	// DrawStages draws the one-word document [word] from rng exactly as Apply does (so a
	// generator in the same state gives the same output) and returns the shortlist in the order
	// drawn (its first row is one exponential-mechanism draw over all rows at scale ε₁/(2k)) and
	// the released row.
	DrawStages(rng *rand.Rand, word string) (shortlist []int, released int, ok bool)
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

// Metric names of metric guarantees (Guarantee.Metric), one per distance a mechanism's
// guarantee is stated in.
const (
	// MetricEMD is the Earth Mover's distance E_d of equal-size bags (order bag).
	MetricEMD = "EMD"
	// MetricPositional is the mean over positions of the Euclidean distance of the words at the
	// same position, (1/N)·Σᵢ d(xᵢ, x′ᵢ) (order keep).
	MetricPositional = "positional"
	// MetricMahalanobis names the guarantee of the Mahalanobis mechanism (and of Vickrey over its
	// noise): the mean over positions of the regularised Mahalanobis distance of the words at the same
	// position, (1/N)·Σᵢ ‖xᵢ − x′ᵢ‖_{Σ′⁻¹}, with ‖y‖_{Σ′⁻¹} = √(yᵀΣ′⁻¹y) (not the Euclidean distance).
	MetricMahalanobis = "mahalanobis"
	// MetricSensitivePositional names the guarantee of SanText+: the positional sum of Euclidean
	// word distances, finite only where the two documents differ in sensitive words alone.
	MetricSensitivePositional = "positional-sensitive"
	// MetricCustomisedSets names the guarantee of CusText: ε-DP per word between words of the same
	// customised output set, no bound across sets.
	MetricCustomisedSets = "custext-sets"
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

// Release orders (option order of none, emd and the other noise-then-decode mechanisms).
const (
	// OrderBag releases the privatised words in uniformly shuffled order (the shuffle drawn from
	// the mechanism's generator after the noise), so the order depends only on the input's
	// multiset: the released object is a bag and the εN·E_d guarantee of Thm. 5.1 holds.
	OrderBag = "bag"
	// OrderKeep releases every word in its input position, as published. Order carries
	// information (swapping two words changes the output distribution although the bags are
	// equal), so only the positional bound ε·Σᵢ d(xᵢ, x′ᵢ) holds (the paper's Eq. 6). The empty
	// string means OrderKeep.
	OrderKeep = "keep"
)

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

// PositionWise is true for order "keep" (the identity releases every position as itself).
func (n None) PositionWise() bool { return !n.Bag }
