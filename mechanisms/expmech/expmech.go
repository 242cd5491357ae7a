package expmech

import (
	"fmt"
	"math"
	"math/rand/v2"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/mechanisms"
	"dptext/mechanisms/internal/rowcache"
)

// Ratings of the token-sampling exponential mechanism (ExpMechOptions.Rating).
const (
	ExpMechRatingEmbedding = "embedding"
	ExpMechRatingContext   = "context"
	ExpMechRatingRandom    = "random"
)

// Out-of-vocabulary policies of the token-sampling exponential mechanism (ExpMechOptions.OOV).
const (
	// ExpMechOOVUniform: a token without a vector gets the constant embedding rating 1/2 (every
	// candidate equally similar), so the embedding rating replaces it by a uniformly random word
	// and the context rating by a word chosen from its neighbours alone. The guarantee holds.
	ExpMechOOVUniform = "uniform"
	// ExpMechOOVKeep: a token without a vector is output unchanged. It leaks the token, so a document
	// containing one has no finite guarantee.
	ExpMechOOVKeep = "keep"
)

// A ContextModel rates every vocabulary word as a replacement for the word at one position from
// that position's neighbourhood, e.g. an n-gram language model (ngram.Bidirectional) or, later,
// the generator of ER-AE. It must be fixed before the mechanism runs (trained on public data or
// on data whose privacy is not claimed).
type ContextModel interface {
	// Vocabulary lists the words of the distribution's rows; it must equal the store's words.
	Vocabulary() []string
	// Window is the number of neighbours read on each side of the position.
	Window() int
	// Distribution writes P(v | doc[i−Window():i], doc[i+1:i+1+Window()]) for every row v into
	// dst. It must not read doc[i] and must be safe for concurrent use.
	Distribution(dst []float64, doc []string, i int)
}

// ExpMechOptions configure NewExpMech.
type ExpMechOptions struct {
	// Rating is "embedding" (default), "context" or "random" (see ExpMech).
	Rating string `toml:"rating"`
	// ContextWeight is w in ρ = w·ρ_context + (1−w)·ρ_embedding for the context rating; [0, 1].
	ContextWeight float64 `toml:"context_weight"`
	// Candidates is k of the two-stage variant: first k candidates with CandidateEpsilon, then
	// one of them with ε. 0 (default) samples from the whole vocabulary in one stage.
	Candidates int `toml:"candidates"`
	// CandidateEpsilon is ε₁ of the two-stage variant (required, > 0, when Candidates > 0).
	CandidateEpsilon float64 `toml:"candidate_epsilon"`
	// OOV is the policy for tokens without a vector: "uniform" (default) or "keep".
	OOV string `toml:"oov"`
	// CacheRows bounds how many per-token rating rows (8 bytes × vocabulary each) are kept
	// between documents; 0 disables the cache. Default 256 (40 MB at 20,000 words).
	CacheRows int `toml:"cache_rows"`
	// Context is the model of the context rating; not configurable from TOML (the caller
	// trains it, e.g. ngram.TrainBidirectional(store.Words(), corpus, …)).
	Context ContextModel `toml:"-"`
}

// DefaultExpMechOptions returns the embedding rating in one stage, OOV tokens replaced
// uniformly, and an equal mix for the context rating.
func DefaultExpMechOptions() ExpMechOptions {
	return ExpMechOptions{Rating: ExpMechRatingEmbedding, ContextWeight: 0.5, OOV: ExpMechOOVUniform, CacheRows: 256}
}

// ExpMech replaces every token of a document, in order, by a word of the vocabulary (the
// store's words) drawn by the exponential mechanism (McSherry and Talwar 2007): position i of
// document x gets v with
//
//	P(v) = exp(ε·ρ_i(x, v)/(2Δ)) / Σ_v′ exp(ε·ρ_i(x, v′)/(2Δ)),   ρ_i ∈ [0, 1], Δ = 1,
//
// the token sampling of Bo, Ding, Fung and Iqbal (ER-AE, "Differentially-private Text
// Sampling", Eq. 6–7; SPEC §4.3). Ratings:
//
//   - embedding: ρ_i(x, v) = (cos(Vec x_i, Vec v) + 1)/2, the affine map of [−1, 1] onto
//     [0, 1]. It is fixed in advance and the same for every row, so ε has one meaning across
//     tokens; a per-row min–max rescaling would stretch each row to the full width and make the
//     effective ε depend on how spread out the token's neighbourhood happens to be. This is the
//     "SynTF" row of ER-AE's Table 1 (SynTF's sampler without the bigram penalty).
//   - context: ρ_i = w·P(v | neighbours)/max_v′ P(v′ | neighbours) + (1−w)·ρ_embedding, the
//     context model's distribution scaled so that its best word rates 1 (the probability itself
//     would rate almost every word near 0, leaving the exponential mechanism nearly uniform).
//   - random: ρ constant, so every word is equally likely: ER-AE's Random-R baseline.
//
// Two-stage variant (Candidates = k > 0): first a set of k distinct candidates is drawn by k
// successive exponential mechanisms without replacement, each with ε₁/k (sampled in one pass by
// the Gumbel top-k trick), which is ε₁-DP by sequential composition; then one candidate is drawn
// by the exponential mechanism with ε over the same ratings. ER-AE's public code fixes the
// second ε; here both are parameters and the per-token budget is ε₁ + ε.
//
// Privacy unit. Every rating lies in [0, 1] for every document, so each position is ε-DP
// (ε₁ + ε for two stages) between any two documents of the same length l — ER-AE's and SynTF's
// adjacency, every pair of texts adjacent — and the document is (ε·l)-DP by sequential
// composition (ER-AE Theorem 1). That covers the neighbours the context rating reads: they are
// part of the private document. It does not cover: the length l (outputs have the input's
// length); tokens kept by the "keep" OOV policy; and the data the embeddings and the context
// model were trained on, which must be fixed in advance — a model trained on the private corpus
// itself makes the outputs depend on other documents, which this bound says nothing about. A
// finer, word-level reading: changing one token changes the ratings of 1 position under the
// embedding rating but of up to 2·Window+1 positions under the context rating, so the
// guarantee between documents differing in one token is ε (embedding) or ε·min(l, 2·Window+1)
// (context); Guarantee reports it as the bound "word_eps".
//
// Cost: a position costs one pass over the vocabulary. For the embedding rating in one stage
// the cumulative weights depend only on the original token; they are computed per document in
// blocks (one matrix product) and cached (CacheRows), so a cached position costs one binary
// search (SampleCumulative).
type ExpMech struct {
	store   *embeddings.Store
	epsilon float64
	opts    ExpMechOptions
	unit    []float32      // the store's vectors scaled to unit length (zero vectors stay zero)
	panels  *linalg.Panels // unit packed for linalg.MulAPanelsT
	cache   *rowcache.Cache
}

// NewExpMech builds the token-sampling exponential mechanism over the store's words with budget
// epsilon per token (per token of the second stage when Candidates > 0).
func NewExpMech(store *embeddings.Store, epsilon float64, opts ExpMechOptions) (*ExpMech, error) {
	if store == nil || store.Len() == 0 {
		return nil, fmt.Errorf("expmech: empty vocabulary: want an embedding store with at least one word")
	}
	if !(epsilon == 0 && opts.Rating == ExpMechRatingRandom) {
		if err := mechanisms.ExponentialEpsilonRange.Check(epsilon); err != nil {
			return nil, fmt.Errorf("expmech: %w", err)
		}
	}
	switch opts.Rating {
	case ExpMechRatingEmbedding, ExpMechRatingRandom:
	case ExpMechRatingContext:
		if opts.Context == nil {
			return nil, fmt.Errorf(`expmech: rating = "context" needs a context model (Context, e.g. an ngram.Bidirectional trained on the corpus)`)
		}
		if err := sameVocabulary(store, opts.Context.Vocabulary()); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf(`expmech: rating = %q: want "embedding", "context" or "random"`, opts.Rating)
	}
	if !(opts.ContextWeight >= 0 && opts.ContextWeight <= 1) {
		return nil, fmt.Errorf("expmech: context_weight = %g: want a value in [0, 1]", opts.ContextWeight)
	}
	if opts.Candidates < 0 || opts.Candidates > store.Len() {
		return nil, fmt.Errorf("expmech: candidates = %d: want 0 (one stage) or 1 to %d (the vocabulary size)", opts.Candidates, store.Len())
	}
	if opts.Candidates > 0 && opts.Rating == ExpMechRatingRandom {
		return nil, fmt.Errorf(`expmech: candidates = %d: the two-stage variant needs rating "embedding" or "context", not "random"`, opts.Candidates)
	}
	if opts.Candidates > 0 && !(opts.CandidateEpsilon > 0 && !math.IsInf(opts.CandidateEpsilon, 0)) {
		return nil, fmt.Errorf("expmech: candidate_epsilon = %g: want a finite value > 0 when candidates > 0", opts.CandidateEpsilon)
	}
	if opts.Candidates == 0 && opts.CandidateEpsilon != 0 {
		return nil, fmt.Errorf("expmech: candidate_epsilon = %g needs candidates > 0 (the two-stage variant)", opts.CandidateEpsilon)
	}
	if opts.OOV != ExpMechOOVUniform && opts.OOV != ExpMechOOVKeep {
		return nil, fmt.Errorf(`expmech: oov = %q: want "uniform" or "keep"`, opts.OOV)
	}
	if opts.CacheRows < 0 {
		return nil, fmt.Errorf("expmech: cache_rows = %d: want ≥ 0 (0 disables the cache)", opts.CacheRows)
	}
	m := &ExpMech{store: store, epsilon: epsilon, opts: opts, cache: rowcache.New(opts.CacheRows)}
	if opts.Rating != ExpMechRatingRandom {
		m.unit = linalg.UnitRows(store.Matrix(), store.Dim())
		m.panels = linalg.PackPanels(m.unit, store.Len(), store.Dim())
	}
	return m, nil
}

func sameVocabulary(store *embeddings.Store, words []string) error {
	if len(words) != store.Len() {
		return fmt.Errorf("expmech: the context model has %d words, the embeddings %d: train it on the store's words", len(words), store.Len())
	}
	for i, w := range words {
		if w != store.Word(i) {
			return fmt.Errorf("expmech: the context model's word %d is %q, the embeddings' %q: train it on the store's words", i, w, store.Word(i))
		}
	}
	return nil
}

// tokenBudget is the ε spent on one position.
func (m *ExpMech) tokenBudget() float64 {
	if m.opts.Candidates > 0 {
		return m.opts.CandidateEpsilon + m.epsilon
	}
	return m.epsilon
}

// Apply returns one vocabulary word per token of doc (or the token itself under oov = "keep").
func (m *ExpMech) Apply(rng *rand.Rand, doc []string) []string {
	out := make([]string, len(doc))
	if m.opts.Rating == ExpMechRatingRandom {
		for i := range doc {
			out[i] = m.store.Word(rng.IntN(m.store.Len()))
		}
		return out
	}
	s := m.newSampler()
	for start := 0; start < len(doc); start += blockSize {
		end := min(start+blockSize, len(doc))
		rows := m.rows(doc[start:end])
		for i := start; i < end; i++ {
			id, ok := m.store.Lookup(doc[i])
			if !ok && m.opts.OOV == ExpMechOOVKeep {
				out[i] = doc[i]
				continue
			}
			var row []float64
			if ok {
				row = rows[id]
			}
			out[i] = m.store.Word(s.sample(rng, doc, i, row, ok))
		}
	}
	return out
}

// Guarantee is pure (ε·l)-DP for a document of l tokens (per-token budget ε₁ + ε for two
// stages), with the bounds "eps_l", "word_eps" (documents differing in one token) and, for two
// stages, "candidate_eps_l" and "token_eps_l". The random rating reports ε = 0 (its output does
// not depend on the input). Under oov = "keep" a document with an out-of-vocabulary token has
// Epsilon = +Inf; "eps_l" then holds only between documents with the same out-of-vocabulary
// tokens at the same positions.
func (m *ExpMech) Guarantee(doc []string) mechanisms.Guarantee {
	l := float64(len(doc))
	b := m.tokenBudget()
	g := mechanisms.Guarantee{Kind: mechanisms.KindPure, Epsilon: b * l, Bounds: map[string]float64{"eps_l": b * l}}
	switch m.opts.Rating {
	case ExpMechRatingRandom:
		g.Epsilon = 0
		return g
	case ExpMechRatingContext:
		g.Bounds["word_eps"] = b * min(l, float64(2*m.opts.Context.Window()+1))
	default:
		g.Bounds["word_eps"] = b * min(l, 1)
	}
	if m.opts.Candidates > 0 {
		g.Bounds["candidate_eps_l"] = m.opts.CandidateEpsilon * l
		g.Bounds["token_eps_l"] = m.epsilon * l
	}
	if m.opts.OOV == ExpMechOOVKeep && m.countOOV(doc) > 0 {
		g.Epsilon = math.Inf(1)
	}
	return g
}

// Diagnose reports "unchanged_share" (positions whose word was kept) and "oov_tokens" (tokens
// of the original without a vector, handled by the oov policy).
func (m *ExpMech) Diagnose(original, private []string) map[string]float64 {
	same := 0
	for i := range min(len(original), len(private)) {
		if original[i] == private[i] {
			same++
		}
	}
	share := 0.0
	if len(original) > 0 {
		share = float64(same) / float64(len(original))
	}
	return map[string]float64{"unchanged_share": share, "oov_tokens": float64(m.countOOV(original))}
}

func (m *ExpMech) countOOV(doc []string) int {
	n := 0
	for _, w := range doc {
		if _, ok := m.store.Lookup(w); !ok {
			n++
		}
	}
	return n
}

// Epsilon is the per-token ε of the (second) stage.
func (m *ExpMech) Epsilon() float64 { return m.epsilon }

// PassedThrough lists the out-of-vocabulary tokens of doc the "keep" policy releases unchanged,
// in order of first occurrence (none under "uniform").
func (m *ExpMech) PassedThrough(doc []string) []string {
	if m.opts.OOV != ExpMechOOVKeep || m.opts.Rating == ExpMechRatingRandom {
		return nil
	}
	return mechanisms.UnknownWords(m.store, doc)
}

// ClaimEpsilon is the per-word budget of the guarantee: ε, or ε₁ + ε for two stages.
func (m *ExpMech) ClaimEpsilon() float64 { return m.tokenBudget() }
