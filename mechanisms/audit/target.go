// Package audit estimates, from a mechanism's own outputs, lower confidence bounds on its real
// privacy loss and compares them with the loss it claims.
//
// Two levels are audited. At the word level, pairs of single-word inputs (nearest neighbours,
// random pairs, far pairs) are compared: where the output distribution is exactly computable
// (the exponential-mechanism samplers and the random baseline) the exact maximum log-ratio over
// all outputs is computed from the mechanism's own probability code; otherwise (EMD and other
// noise-then-decode mechanisms) outputs are sampled and |ln P(w|x)/P(w|x′)| is bounded from
// below with Clopper–Pearson intervals. At the document level a distinguishing game is played
// on neighbouring documents (one word changed, two words swapped, one out-of-vocabulary word
// changed): a distinguisher (the likelihood-ratio test where the distribution is known, else a
// naive Bayes classifier trained on half of the samples) decides which document each output
// came from, and its error rates give the bound ε ≥ ln((1 − FPR)/FNR) (the hypothesis-testing
// reading of differential privacy: Wasserman and Zhou 2010; Kairouz, Oh and Viswanath 2015),
// with Clopper–Pearson upper bounds on both rates.
//
// Further tests give the audit power where counting outputs has none (a sampled bound can never
// exceed its ceiling ln(K/ln(2T/α)); see SampledCeiling): the noise step of a noise-then-decode
// mechanism is tested against the density its claim requires (noise.go) and its releases
// against an exact re-decoding of that noise (decode.go); the sampler of an exactly computable
// mechanism against the distribution the audit computes, with the input's own probability
// tested on its own (sampler.go); a two-stage sampler stage by stage (stages.go). Every draw
// goes through the release path the runner writes results from (Target.Release). Pairs with no
// finite claim are reported unprotected, with the mechanism's reason; a mechanism that states
// no bound between different words is audited at the claim ∞, which it states first.
//
// Every sampled bound and goodness-of-fit test is one-sided at a Bonferroni-corrected level, so
// that with probability at least 1 − α no reported lower bound exceeds the true loss and no
// correct noise step or sampler is rejected: a failure is then evidence, at family-wise level
// α, that the mechanism releases more than it claims, or that its claim is not proved by its
// noise.
package audit

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/mechanisms"
)

// Target is what the audit needs of a mechanism. NewTarget fills it from a mechanism's own
// methods; tests may replace fields to audit deliberately wrong variants.
type Target struct {
	// Name labels the target in reports.
	Name string
	// Epsilon is the mechanism's own per-unit ε, the default claim.
	Epsilon float64
	// Store is the vocabulary the input words are drawn from.
	Store *embeddings.Store
	// Release privatises docs[i] with gens[i] for every i through the code path that writes a
	// run's results (mechanisms.PrivatizeBatch: the mechanism's batch path where it has one).
	// Apply, SampleWord and the decoding check draw through it.
	Release func(gens []*rand.Rand, docs [][]string) ([][]string, error)
	// Apply privatises one document (through Release; a release error is recorded and returned
	// by Run, and Apply then returns nil).
	Apply func(rng *rand.Rand, doc []string) []string
	// InTurn says that Release makes every draw of document i at its turn
	// (mechanisms.InTurnDrawer), so that documents released one after the other with one
	// generator can be released in one call with that generator repeated (applyInTurn).
	InTurn bool
	// SampleWord draws k independent outputs for the single word x (through Release).
	SampleWord func(rng *rand.Rand, x string, k int) []string
	// LogProbabilities, when not nil, returns the exact output distribution (natural logarithms,
	// indexed by output word row) of one position whose word is x, or false when it is not
	// exactly computable for x.
	LogProbabilities func(x string) ([]float64, bool)
	// Positional says that the mechanism privatises every position independently with the
	// distribution LogProbabilities gives for its word, in place (so the likelihood ratio of a
	// whole output is the sum over positions).
	Positional bool
	// OutputWords names the rows of LogProbabilities (the output vocabulary).
	OutputWords []string
	// WordUnits is the number of claim units between single words x and y: d(x, y) for a
	// metric mechanism, 1 for a per-word pure one. The claim for the pair is C·WordUnits.
	WordUnits func(x, y string) float64
	// DocUnits is the number of claim units between documents x and y (+Inf: no finite claim).
	DocUnits func(x, y []string) float64
	// NoClaim: the mechanism claims no privacy (identity, scrubbing); its default claim is +Inf.
	NoClaim bool
	// NoBound: the mechanism states no bound between documents that differ in a known word
	// (its Guarantee of such a document is ε = ∞: truncated-gumbel); its default claim is +Inf
	// and a claim given to the audit is held per differing word.
	NoBound bool
	// Unprotected, when not nil, says why a pair of documents has no finite claim ("" when it
	// has one).
	Unprotected func(x, y []string) string
	// ClaimPairs are pairs of input words at which the mechanism says its per-unit claim is
	// attained (SynTF's v_max, v_min of ℓ); they are audited besides the drawn pairs.
	ClaimPairs [][2]string
	// Groups, when not nil, partition the vocabulary so that the claim covers exactly the pairs
	// of one group (CusText's output sets); with LogProbabilities the audit computes the largest
	// loss over every such pair.
	Groups [][]string
	// Noise, when not nil, is the mechanism's noise step, tested against the density the claim
	// requires (see noise.go).
	Noise mechanisms.NoiseStep
	// Stages, when not nil, are the two stages of the mechanism's sampler, audited in parts
	// (see stages.go).
	Stages mechanisms.TwoStage
	// releaseErr is the first error Release returned to Apply or SampleWord.
	releaseErr error
}

// applyInTurn releases docs one after the other with rng, as Apply on each in turn does: in one
// Release call with rng repeated when the target draws in turn (InTurn), else one Apply each.
func (t *Target) applyInTurn(rng *rand.Rand, docs [][]string) [][]string {
	if !t.InTurn {
		out := make([][]string, len(docs))
		for i, d := range docs {
			out[i] = t.Apply(rng, d)
		}
		return out
	}
	gens := make([]*rand.Rand, len(docs))
	for i := range gens {
		gens[i] = rng
	}
	return t.release(gens, docs)
}

// release privatises docs with gens through t.Release, recording its first error (nil outputs
// then).
func (t *Target) release(gens []*rand.Rand, docs [][]string) [][]string {
	out, err := t.Release(gens, docs)
	if err == nil && len(out) != len(docs) {
		err = fmt.Errorf("%d outputs for %d documents", len(out), len(docs))
	}
	if err != nil {
		if t.releaseErr == nil {
			t.releaseErr = fmt.Errorf("audit: mechanism %s: release: %w", t.Name, err)
		}
		return make([][]string, len(docs))
	}
	return out
}

// The capabilities NewTarget reads from a mechanism, each optional; together they replace any
// knowledge of concrete mechanism types:
//
//   - mechanisms.Claimer (ClaimEpsilon) or Epsilon(): the ε per claim unit;
//   - mechanisms.PairBounder: the claim's units between two documents (metric guarantees);
//   - positional (IndependentPositions): every position is privatised from its own word alone,
//     so k copies of a word in one document are k independent draws and the likelihood ratio
//     of an output is a sum over positions;
//   - mechanisms.NoiseStep: the noise step, tested against the density the claim requires;
//   - wordDistribution / modelDistribution: the exact output distribution of one word;
//   - pointMass: every word is released as itself (the identity);
//   - protectedSets, claimPairs, unprotected: which pairs the claim covers, where it is
//     attained, and why a pair has no finite bound.
type (
	epsiloner        interface{ Epsilon() float64 }
	positional       interface{ IndependentPositions() bool }
	wordDistribution interface {
		LogProbabilities(word string) ([]float64, bool)
	}
	pointMass         interface{ PointMass() bool }
	protectedSets     interface{ ProtectedSets() [][]string }
	claimPairs        interface{ ClaimPairs() [][2]string }
	unprotected       interface{ UnprotectedReason(x, y []string) string }
	modelDistribution interface {
		LogProbabilities(doc []string) ([][]float64, bool)
		Words() []string
	}
)

// epsilonOf returns a mechanism's per-unit ε (0 for a mechanism without one): its
// ClaimEpsilon when it states one, else its Epsilon.
func epsilonOf(m mechanisms.Mechanism) float64 {
	if c, ok := m.(mechanisms.Claimer); ok {
		return c.ClaimEpsilon()
	}
	if e, ok := m.(epsiloner); ok {
		return e.Epsilon()
	}
	return 0
}

// NewTarget describes mechanism m over the vocabulary store for the audit, from the
// capabilities above. The claim units come from the mechanism's guarantee: a PairBounder's
// PairDistance (metric mechanisms such as EMD), else the per-document budget divided by the
// per-unit ε (ε·l for expmech: l positions; ℓ·n or ε·n for SynTF), one per word at the word
// level. Mechanisms that claim nothing (kind "none") have no finite claim unless the audit is
// given one, in which case one unit per word is used.
func NewTarget(name string, m mechanisms.Mechanism, store *embeddings.Store) (*Target, error) {
	if store == nil || store.Len() < 2 {
		return nil, fmt.Errorf("audit: the vocabulary needs at least 2 words")
	}
	eps := epsilonOf(m)
	t := &Target{Name: name, Epsilon: eps, Store: store}
	t.Release = func(gens []*rand.Rand, docs [][]string) ([][]string, error) {
		return mechanisms.PrivatizeBatch(m, gens, docs)
	}
	t.Apply = func(rng *rand.Rand, doc []string) []string {
		return t.release([]*rand.Rand{rng}, [][]string{doc})[0]
	}
	if it, ok := m.(mechanisms.InTurnDrawer); ok {
		t.InTurn = it.DrawsInTurn()
	}
	if p, ok := m.(positional); ok {
		t.Positional = p.IndependentPositions()
	}
	_, noisy := m.(mechanisms.NoiseStep)
	t.SampleWord = t.wordSampler(func() bool { return t.Positional || noisy })
	if err := t.setDistribution(m); err != nil {
		return nil, err
	}
	if ts, ok := m.(mechanisms.TwoStage); ok {
		if k, _, _ := ts.StageBudgets(); k > 0 {
			// The stages draw over the rows of OutputWords: a model's words (set by
			// setDistribution), else the store's.
			t.Stages = ts
			if _, model := m.(modelDistribution); !model {
				t.OutputWords = store.Words()
			}
		}
	}
	if u, ok := m.(unprotected); ok {
		t.Unprotected = u.UnprotectedReason
	}
	if cp, ok := m.(claimPairs); ok {
		t.ClaimPairs = cp.ClaimPairs()
	}
	if g, ok := m.(protectedSets); ok {
		t.Groups = g.ProtectedSets()
	}
	if pm, ok := m.(pointMass); ok && pm.PointMass() {
		t.setPointMass(store)
	}
	if err := t.setUnits(m, store); err != nil {
		return nil, err
	}
	return t, nil
}

// wordSampler returns the SampleWord of t: k outputs of the one-word document x, all drawn
// through the release path: as one document of k copies of x when independent() says its words
// are privatised independently, else one one-word document at a time (each a release of its
// own, drawing from rng in turn) until k outputs are drawn.
func (t *Target) wordSampler(independent func() bool) func(rng *rand.Rand, x string, k int) []string {
	return func(rng *rand.Rand, x string, k int) []string {
		if independent() {
			// Words privatised independently: k copies of x in one document are k
			// independent draws (one batch; a bag release only reorders them).
			if out := t.release([]*rand.Rand{rng}, [][]string{repeatWord(x, k)})[0]; len(out) == k {
				return out
			}
		}
		// One one-word document at a time, each a release call with rng.
		out := make([]string, 0, k)
		for len(out) < k {
			o := t.release([]*rand.Rand{rng}, [][]string{{x}})[0]
			if len(o) == 0 {
				o = []string{""} // the empty release is an output too
			}
			out = append(out, o...)
		}
		return out[:k]
	}
}

// setDistribution sets the exact distribution of a one-word document (OutputWords and
// LogProbabilities) when m gives it: a model's sampler, whose inputs become the model's words
// that have vectors, or a sampler over the store's words.
func (t *Target) setDistribution(m mechanisms.Mechanism) error {
	store := t.Store
	if dp, ok := m.(modelDistribution); ok {
		// A model's sampler (erae, ae-dp): its inputs are the model's words that have vectors,
		// and the exact distribution of a one-word document is its position's.
		keep := map[string]bool{}
		for _, w := range dp.Words() {
			keep[w] = true
		}
		t.Store = store.Filter(func(w string) bool { return keep[w] })
		if t.Store.Len() < 2 {
			return fmt.Errorf("audit: mechanism %s: fewer than 2 of its model's words have vectors", t.Name)
		}
		t.OutputWords = dp.Words()
		t.LogProbabilities = func(x string) ([]float64, bool) {
			rows, ok := dp.LogProbabilities([]string{x})
			if !ok || len(rows) != 1 {
				return nil, false
			}
			return rows[0], true
		}
	}
	if lp, ok := m.(wordDistribution); ok {
		// Samplers over the store's words, in row order.
		t.LogProbabilities = lp.LogProbabilities
		t.OutputWords = store.Words()
	}
	return nil
}

// setPointMass sets the exact distribution of the identity over the words of store: one
// word's output is the word itself.
func (t *Target) setPointMass(store *embeddings.Store) {
	t.OutputWords = store.Words()
	t.LogProbabilities = func(x string) ([]float64, bool) {
		row, ok := store.Lookup(x)
		if !ok {
			return nil, false
		}
		lp := make([]float64, store.Len())
		for i := range lp {
			lp[i] = math.Inf(-1)
		}
		lp[row] = 0
		return lp, true
	}
}

// setUnits sets the claim units of m's guarantee (WordUnits, DocUnits; Noise for a metric
// mechanism with a noise step; NoClaim for one that claims nothing), reading its guarantee
// of store's first word.
func (t *Target) setUnits(m mechanisms.Mechanism, store *embeddings.Store) error {
	eps := t.Epsilon
	g := m.Guarantee([]string{store.Word(0)})
	t.NoBound = math.IsInf(g.Epsilon, 1)
	switch {
	case g.Kind == mechanisms.KindMetric:
		if ns, noisy := m.(mechanisms.NoiseStep); noisy {
			t.Noise = ns
		}
		pb, ok := m.(mechanisms.PairBounder)
		if !ok {
			return fmt.Errorf("audit: mechanism %s states a metric guarantee but not its pair distances", t.Name)
		}
		t.WordUnits = func(x, y string) float64 { return pb.PairDistance([]string{x}, []string{y}) }
		t.DocUnits = pb.PairDistance
	case g.Kind == mechanisms.KindPure:
		t.WordUnits = func(string, string) float64 { return 1 }
		t.DocUnits = func(x, y []string) float64 {
			if len(x) != len(y) {
				return math.Inf(1)
			}
			gx, gy := m.Guarantee(x), m.Guarantee(y)
			b := math.Max(gx.Epsilon, gy.Epsilon)
			switch {
			case math.IsInf(b, 1):
				return b
			case eps > 0:
				return b / eps
			}
			return float64(len(x)) // ε = 0 (random): the claim C·l if one is given
		}
	default:
		t.NoClaim = true
		t.WordUnits = func(string, string) float64 { return 1 }
		t.DocUnits = func(x, y []string) float64 { return float64(len(x)) }
	}
	return nil
}

// perWordUnits returns a copy of t whose claim units are one per differing word (one per
// differing position between documents of equal length, none between documents of different
// lengths): the units of a claim given to the audit of a mechanism that claims nothing or
// states no bound.
func (t *Target) perWordUnits() *Target {
	c := *t
	c.WordUnits = func(x, y string) float64 {
		if x == y {
			return 0
		}
		return 1
	}
	c.DocUnits = func(x, y []string) float64 {
		if len(x) != len(y) {
			return math.Inf(1)
		}
		n := 0
		for i := range x {
			if x[i] != y[i] {
				n++
			}
		}
		return float64(n)
	}
	c.Unprotected = nil
	return &c
}

// repeatWord is k copies of w.
func repeatWord(w string, k int) []string {
	doc := make([]string, k)
	for i := range doc {
		doc[i] = w
	}
	return doc
}
