package syntf

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"dptext/embeddings"
	"dptext/internal/lemma"
	"dptext/internal/text"
	"dptext/mechanisms"
	"dptext/mechanisms/internal/rowcache"
)

// SynTFOptions configures SynTF. Keys are the names of the config's params table.
type SynTFOptions struct {
	// Case is "lower" (lowercase every token, the default) or "orth" (keep spelling as is).
	Case string `toml:"case"`
	// Lemmatize replaces each token by its WordNet lemma (see package lemma), read from
	// WordNetDir. Default false.
	Lemmatize bool `toml:"lemmatize"`
	// WordNetDir holds WordNet's index.* and *.exc files (Debian's wordnet-base installs them
	// in /usr/share/wordnet, the default). Used only when Lemmatize is true.
	WordNetDir string `toml:"wordnet_dir"`
	// RemoveStopwords drops the stopwords of text.IsStopword (after case folding). Default true.
	RemoveStopwords bool `toml:"remove_stopwords"`
	// RemoveNumbers drops number tokens: at least one digit and otherwise only the
	// characters . , - + / : %. Default true.
	RemoveNumbers bool `toml:"remove_numbers"`
	// Weighting of the document vector t before normalising it to θ: "tf" (counts, the
	// default) or "tfidf" (counts × IDF.Weight, which needs IDF).
	Weighting string `toml:"weighting"`
	// IDF holds document frequencies of a reference corpus for Weighting "tfidf" (see FitIDF).
	IDF *IDF `toml:"-"`
	// Length is n, the number of output words (the paper's best: 150).
	Length int `toml:"n"`
	// BigramFactor is s in ρ = cos − s·B, ≥ 0 (the paper's best: 0.3).
	BigramFactor float64 `toml:"s"`
	// Clip is how ρ is kept in an interval of width Δ: "unit" (clip to [0, 1], Δ = 1, the
	// default and the paper's setting) or "none" (ρ ∈ [−1−s, 1], Δ = 2 + s).
	Clip string `toml:"clip"`
	// CacheRows bounds the number of per-source-word probability rows kept between
	// documents (each |V| float64); 0 disables the cache. Default 256.
	CacheRows int `toml:"cache_rows"`
	// TightBound computes ℓ at construction (see ComputeEll), so that Guarantee reports ℓ·n.
	// Default true.
	TightBound bool `toml:"tight_bound"`
	// EllBlock is the number of source words per matrix-product block when computing ℓ.
	// Default 128.
	EllBlock int `toml:"ell_block"`
	// EllWorkers is the number of goroutines computing ℓ; 0 means GOMAXPROCS.
	EllWorkers int `toml:"ell_workers"`
	// EllCacheDir, when not empty, is where ℓ is cached between runs (one small JSON file per
	// vocabulary, vectors, rating parameters and ε).
	EllCacheDir string `toml:"ell_cache_dir"`
	// EllContext, when not nil, cancels the computation of ℓ (which can take a minute): it
	// then fails with the context's error. Not a config key.
	EllContext context.Context `toml:"-"`
	// EllLog, when not nil, is told when ℓ could not be written to EllCacheDir (a read-only or
	// full disk): the cache is optional, so ℓ is then used uncached. Not a config key.
	EllLog io.Writer `toml:"-"`
	// EllRecompute ignores the entries of EllCacheDir and computes ℓ afresh, replacing them
	// (a run with --force). Not a config key.
	EllRecompute bool `toml:"-"`
}

// DefaultSynTFOptions returns the paper's best settings (Table 2) except lemmatisation, which
// needs WordNet: lowercase, stopwords and numbers removed, tf weighting, n = 150, s = 0.3,
// ratings clipped to [0, 1], ℓ computed.
func DefaultSynTFOptions() SynTFOptions {
	return SynTFOptions{
		Case:            "lower",
		WordNetDir:      "/usr/share/wordnet",
		RemoveStopwords: true,
		RemoveNumbers:   true,
		Weighting:       "tf",
		Length:          150,
		BigramFactor:    0.3,
		Clip:            SynTFClipUnit,
		CacheRows:       256,
		TightBound:      true,
		EllBlock:        128,
	}
}

func (o SynTFOptions) validateRating() error {
	if !(o.BigramFactor >= 0) || math.IsInf(o.BigramFactor, 0) {
		return fmt.Errorf("syntf: s = %g: want a finite value ≥ 0", o.BigramFactor)
	}
	if o.Clip != SynTFClipUnit && o.Clip != SynTFClipNone {
		return fmt.Errorf("syntf: clip = %q: want %q or %q", o.Clip, SynTFClipUnit, SynTFClipNone)
	}
	if o.EllBlock <= 0 {
		return fmt.Errorf("syntf: ell_block = %d: want > 0", o.EllBlock)
	}
	return nil
}

// SynTF is the synthetic term-frequency mechanism of Weggenmann and Kerschbaum (SIGIR 2018,
// Sect. 3.3, Algorithm 1). The document is vectorised into t over the vocabulary V (the
// store's words) and normalised to θ = t/‖t‖₁; then n times a word v ~ θ is drawn and replaced
// by w drawn from the exponential mechanism
//
//	P(w | v) = exp(ε·ρ(v,w)/(2Δ)) / Σ_w' exp(ε·ρ(v,w')/(2Δ)),
//
// with the rating ρ(v,w) = cos(Vec v, Vec w) − s·B(v,w), B the letter-bigram overlap, clipped
// as SynTFOptions.Clip says (see SynTFClipUnit for the exact definitions). Each source word's
// cumulative row is computed when first needed (never all |V|² at once) and kept in a bounded
// LRU cache shared by concurrent Apply calls. The output is the n words w
// (a bag: their order carries nothing) and its counts (TF). Privacy unit: the whole document,
// every pair of documents adjacent; n output words cost εn, (ε + ln η)n or ℓn (Sect. 3.4, see
// SynTFLoss). Tokens that are not in V after preprocessing are dropped from t; a document
// without any in-vocabulary token gets the uniform θ over V (any θ keeps the guarantee, by
// Lemma 3.2).
type SynTF struct {
	store   *embeddings.Store
	epsilon float64
	opts    SynTFOptions
	rater   *synTFRater
	scale   float64 // ε/(2Δ)
	lemmas  *lemma.Lemmatizer
	loss    SynTFLoss
	ell     EllResult
	cache   *rowcache.Cache
}

// NewSynTF returns SynTF over the vocabulary of store (restrict it with store.TopK first) at
// privacy parameter epsilon per output word.
func NewSynTF(store *embeddings.Store, epsilon float64, opts SynTFOptions) (*SynTF, error) {
	switch {
	case store == nil || store.Len() < 2:
		return nil, fmt.Errorf("syntf: the vocabulary needs at least 2 words")
	case !mechanisms.ExponentialEpsilonRange.Contains(epsilon):
		return nil, fmt.Errorf("syntf: %w", mechanisms.ExponentialEpsilonRange.Check(epsilon))
	case opts.Case != "lower" && opts.Case != "orth":
		return nil, fmt.Errorf("syntf: case = %q: want \"lower\" or \"orth\"", opts.Case)
	case opts.Weighting != "tf" && opts.Weighting != "tfidf":
		return nil, fmt.Errorf("syntf: weighting = %q: want \"tf\" or \"tfidf\"", opts.Weighting)
	case opts.Weighting == "tfidf" && opts.IDF == nil:
		return nil, fmt.Errorf("syntf: weighting = \"tfidf\" needs document frequencies (SynTFOptions.IDF, see SynTF.FitIDF)")
	case opts.Length <= 0:
		return nil, fmt.Errorf("syntf: n = %d: want > 0", opts.Length)
	case opts.CacheRows < 0:
		return nil, fmt.Errorf("syntf: cache_rows = %d: want ≥ 0", opts.CacheRows)
	case opts.EllWorkers < 0:
		return nil, fmt.Errorf("syntf: ell_workers = %d: want ≥ 0 (0 = all cores)", opts.EllWorkers)
	}
	if err := opts.validateRating(); err != nil {
		return nil, err
	}
	m := &SynTF{store: store, epsilon: epsilon, opts: opts, cache: rowcache.New(opts.CacheRows)}
	if opts.Lemmatize {
		l, err := lemma.Load(opts.WordNetDir)
		if err != nil {
			return nil, fmt.Errorf("syntf: lemmatize = true, wordnet_dir = %q: %w", opts.WordNetDir, err)
		}
		m.lemmas = l
	}
	m.rater = newSynTFRater(store, opts.BigramFactor, opts.Clip)
	m.scale = synTFScale(m.rater, epsilon)
	m.loss = SynTFLoss{Epsilon: epsilon, EpsilonLnEta: epsilon + SynTFEta(epsilon, store.Len()), Ell: math.NaN()}
	if opts.TightBound {
		ell, err := ComputeEll(store, epsilon, opts, opts.EllWorkers)
		if err != nil {
			return nil, err
		}
		m.ell, m.loss.Ell = ell, ell.Ell
	}
	return m, nil
}

// Loss returns the per-output-word privacy loss under the three bounds of Sect. 3.4.
func (m *SynTF) Loss() SynTFLoss { return m.loss }

// Ell returns ℓ and the words attaining it (zero when TightBound was off).
func (m *SynTF) Ell() EllResult { return m.ell }

// Guarantee reports pure differential privacy between any two documents with budget the
// tightest of εn, (ε + ln η)n and ℓn; all three are in Bounds ("eps_n", "eps_ln_eta_n",
// "ell_n"). The bound does not depend on the document.
func (m *SynTF) Guarantee([]string) mechanisms.Guarantee {
	return mechanisms.Guarantee{Kind: mechanisms.KindPure, Epsilon: m.loss.Tightest() * float64(m.opts.Length), Bounds: m.loss.Bounds(m.opts.Length)}
}

// Terms applies the vectoriser's preprocessing to doc — case folding, then stopword and number
// removal, then lemmatisation — and returns the remaining tokens, in or out of the vocabulary.
func (m *SynTF) Terms(doc []string) []string {
	out := make([]string, 0, len(doc))
	for _, tok := range doc {
		if m.opts.Case == "lower" {
			tok = strings.ToLower(tok)
		}
		if m.opts.RemoveStopwords && text.IsStopword(strings.ToLower(tok)) {
			continue
		}
		if m.opts.RemoveNumbers && isSynTFNumber(tok) {
			continue
		}
		if m.lemmas != nil {
			tok = m.lemmas.Lemma(tok)
		}
		out = append(out, tok)
	}
	return out
}

// isSynTFNumber reports whether tok has a digit and otherwise only number punctuation.
func isSynTFNumber(tok string) bool {
	digit := false
	for _, r := range tok {
		switch {
		case unicode.IsDigit(r):
			digit = true
		case !strings.ContainsRune(".,-+/:%", r):
			return false
		}
	}
	return digit
}

// theta returns the support of θ (vocabulary rows, in order of first occurrence) and its
// cumulative weights; both empty when no term is in the vocabulary.
func (m *SynTF) theta(doc []string) (support []int, cum []float64) {
	weight := map[int]float64{}
	for _, t := range m.Terms(doc) {
		row, ok := m.store.Lookup(t)
		if !ok {
			continue
		}
		if _, seen := weight[row]; !seen {
			support = append(support, row)
		}
		weight[row]++
	}
	total := 0.0
	cum = make([]float64, len(support))
	for i, row := range support {
		w := weight[row]
		if m.opts.Weighting == "tfidf" {
			w *= m.opts.IDF.Weight(m.store.Word(row))
		}
		total += w
		cum[i] = total
	}
	for i := range cum {
		cum[i] /= total
	}
	if len(cum) > 0 {
		cum[len(cum)-1] = 1
	}
	return support, cum
}

// Apply returns the n synthetic words of doc: first the n source words v₁…vₙ ~ θ, then for
// each its substitute wᵢ ~ P(·|vᵢ), all from rng.
func (m *SynTF) Apply(rng *rand.Rand, doc []string) []string {
	sources := m.sources(rng, doc)
	rows := m.cumulativeRows(sources)
	out := make([]string, len(sources))
	for i, v := range sources {
		out[i] = m.store.Word(mechanisms.SampleCumulative(rng, rows[v]))
	}
	return out
}

// sources draws the n source words v₁…vₙ ~ θ of doc from rng (uniform over the vocabulary when
// no term of doc is in it).
func (m *SynTF) sources(rng *rand.Rand, doc []string) []int {
	support, thetaCum := m.theta(doc)
	sources := make([]int, m.opts.Length)
	for i := range sources {
		if len(support) == 0 {
			sources[i] = rng.IntN(m.store.Len())
		} else {
			sources[i] = support[mechanisms.SampleCumulative(rng, thetaCum)]
		}
	}
	return sources
}

// cumulativeRows returns the exponential mechanism's cumulative row of every distinct source,
// from the cache or computed in one batch.
func (m *SynTF) cumulativeRows(sources []int) map[int][]float64 {
	rows, missing := m.cache.Lookup(sources)
	if len(missing) == 0 {
		return rows
	}
	size := m.store.Len()
	sc := m.rater.newScratch(len(missing))
	ratings := make([]float32, len(missing)*size)
	m.rater.rows(ratings, missing, sc)
	cums := make([][]float64, len(missing))
	for i := range missing {
		cums[i] = make([]float64, size)
		for w, u := range ratings[i*size : (i+1)*size] {
			cums[i][w] = float64(u)
		}
	}
	mechanisms.ExponentialCumulativeInPlace(cums, m.scale)
	for i, v := range missing {
		rows[v] = cums[i]
		m.cache.Put(v, cums[i])
	}
	return rows
}

// Probabilities returns the exact output distribution P(·|v) of the exponential mechanism
// for source word v, or false when v is not in the vocabulary.
func (m *SynTF) Probabilities(v string) ([]float64, bool) {
	r, ok := m.ratingsOf(v)
	if !ok {
		return nil, false
	}
	return mechanisms.ExponentialProbabilities(r, m.scale), true
}

// ratingsOf returns the ratings ρ(v, ·) of source word v over the vocabulary, or false when v
// is not in it.
func (m *SynTF) ratingsOf(v string) ([]float64, bool) {
	row, ok := m.store.Lookup(v)
	if !ok {
		return nil, false
	}
	ratings := make([]float32, m.store.Len())
	m.rater.rows(ratings, []int{row}, m.rater.newScratch(1))
	r64 := make([]float64, len(ratings))
	for i, u := range ratings {
		r64[i] = float64(u)
	}
	return r64, true
}

// LogProbabilities returns the natural logarithms of P(·|v) (see Probabilities), exact where
// a probability underflows, or false when v is not in the vocabulary.
func (m *SynTF) LogProbabilities(v string) ([]float64, bool) {
	r, ok := m.ratingsOf(v)
	if !ok {
		return nil, false
	}
	return mechanisms.ExponentialLogProbabilities(r, m.scale), true
}

// TermCount is one entry of a sparse term-frequency vector.
type TermCount struct {
	Word  string
	Row   int // vocabulary row
	Count int
}

// TF returns the synthetic term-frequency vector of Apply's output: the counts of its words,
// ordered by vocabulary row (words outside the vocabulary are ignored).
func (m *SynTF) TF(private []string) []TermCount {
	counts := map[int]int{}
	for _, w := range private {
		if row, ok := m.store.Lookup(w); ok {
			counts[row]++
		}
	}
	out := make([]TermCount, 0, len(counts))
	for row, c := range counts {
		out = append(out, TermCount{Word: m.store.Word(row), Row: row, Count: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Row < out[j].Row })
	return out
}

// Diagnose reports, for one document: "syntf_terms" (tokens left after preprocessing),
// "syntf_oov_terms" (of those, not in the vocabulary, hence dropped), and
// "syntf_output_in_input" (share of output words that occur among the input's terms).
func (m *SynTF) Diagnose(original, private []string) map[string]float64 {
	terms := m.Terms(original)
	present := map[string]bool{}
	oov := 0
	for _, t := range terms {
		present[t] = true
		if _, ok := m.store.Lookup(t); !ok {
			oov++
		}
	}
	kept := 0
	for _, w := range private {
		if present[w] {
			kept++
		}
	}
	share := 0.0
	if len(private) > 0 {
		share = float64(kept) / float64(len(private))
	}
	return map[string]float64{
		"syntf_terms":           float64(len(terms)),
		"syntf_oov_terms":       float64(oov),
		"syntf_output_in_input": share,
	}
}

// IDF holds document frequencies of a reference corpus for tf-idf weighting.
type IDF struct {
	Docs    int            // number of documents
	DocFreq map[string]int // documents containing each term
}

// Weight is the smoothed inverse document frequency ln((1 + Docs)/(1 + df)) + 1 (as
// scikit-learn's default), so unseen terms get the largest weight and every weight is ≥ 1.
func (f *IDF) Weight(term string) float64 {
	return math.Log(float64(1+f.Docs)/float64(1+f.DocFreq[term])) + 1
}

// FitIDF counts document frequencies of the preprocessed terms (see Terms) of a reference
// corpus, for SynTFOptions.IDF. Use public or held-out documents: the idf table is not
// protected by the mechanism.
func (m *SynTF) FitIDF(docs [][]string) *IDF {
	f := &IDF{Docs: len(docs), DocFreq: map[string]int{}}
	for _, doc := range docs {
		seen := map[string]bool{}
		for _, t := range m.Terms(doc) {
			if !seen[t] {
				seen[t] = true
				f.DocFreq[t]++
			}
		}
	}
	return f
}

// ClaimEpsilon is the per-output-word loss the guarantee is made of: the tightest of ε,
// ε + ln η and ℓ (ℓ computed at the sampler's own scale, see synTFScale).
func (m *SynTF) ClaimEpsilon() float64 { return m.loss.Tightest() }

// ClaimPairs returns the pair of source words at which ℓ is attained (v_max, v_min), when the
// tight bound was computed: the pair whose exact loss must equal ℓ if the sampler and ℓ agree.
func (m *SynTF) ClaimPairs() [][2]string {
	if math.IsNaN(m.loss.Ell) {
		return nil
	}
	return [][2]string{{m.ell.VMax, m.ell.VMin}}
}

// Epsilon is the ε of the exponential mechanism drawing each output word.
func (m *SynTF) Epsilon() float64 { return m.epsilon }
