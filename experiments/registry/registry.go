// Package registry holds every name a config may use — mechanisms, authorship attackers, topic
// classifiers, utility measures and corpus formats — each with all its facts (version, typed
// options, needs, data files, shard cost, baseline role), and the Env its builders read.
package registry

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"dptext/attackers"
	"dptext/classifiers"
	"dptext/classifiers/utility"
	"dptext/embeddings"
	"dptext/experiments/report"
	"dptext/internal/configfile"
	"dptext/internal/learn"
	"dptext/internal/ngram"
	"dptext/internal/resources"
	"dptext/mechanisms"
	"dptext/mechanisms/erae"
	"dptext/mechanisms/expmech"
	"dptext/mechanisms/metricdp"
	"dptext/mechanisms/scrub"
	"dptext/mechanisms/syntf"
)

// Scorer tasks: what a scorer's labels are, which fixes its chance level and its training data.
// The values are the report's (report.TaskAuthor …), defined once there.
const (
	// TaskAuthor: an authorship attacker, trained on the known texts of the set's authors and
	// asked who wrote each private snippet.
	TaskAuthor = report.TaskAuthor
	// TaskTopic: a topic classifier, trained on documents of other authors and asked the topic of
	// each private snippet.
	TaskTopic = report.TaskTopic
	// TaskUtility: a measure over (original, private) snippet pairs.
	TaskUtility = report.TaskUtility
)

// ScorerKind names the kind of scorer of a task, as `dptext list` shows it: "attacker",
// "classifier" or "utility".
func ScorerKind(task string) string {
	switch task {
	case TaskAuthor:
		return "attacker"
	case TaskTopic:
		return "classifier"
	}
	return "utility"
}

// Env is what builders may use besides their options.
type Env struct {
	// Embeddings are the configured word vectors (top_k applied).
	Embeddings *embeddings.Store
	// Workers is the number of goroutines a component may use.
	Workers int
	// Corpus holds normalised documents disjoint from the evaluation authors (the topic training
	// documents), for components that learn from text, such as a language model.
	Corpus [][]string
	// CacheDir is a folder where components may cache derived data between runs (SynTF's ℓ);
	// empty: no cache.
	CacheDir string
	// Context, when not nil, cancels long constructions (SynTF's ℓ).
	Context context.Context
	// ConfigDir is the folder of the config: relative file parameters (erae's model) are read
	// from there, as the config's other paths are; empty: the working directory.
	ConfigDir string
	// InputSHA256 maps the data files the components declare (InputFile: erae's model), by
	// path as the builder resolves it, to the hash (filehash.Sum) the run's manifest records
	// for them: a builder that reads one compares the hash of the bytes it parsed, so that a
	// file replaced after the run hashed it is refused. Nil outside a run.
	InputSHA256 map[string]string
	// Check marks a build by `dptext check`: components write nothing (no cache, even one
	// their options name).
	Check bool
	// Force marks a run with --force: components read none of their caches (SynTF's ℓ) and
	// compute afresh, replacing the entries.
	Force bool
	// RawTexts are the raw texts of every corpus document (for heuristics such as learning
	// which words are names).
	RawTexts []string
	// Log, when not nil, receives warnings of components (an optional cache they could not
	// write).
	Log func(string, ...any)
	// CellDocs and TextWords estimate the documents one cell holds and the words of the
	// longest, for the memory estimates of builders (see fits); 0 when not estimated.
	CellDocs, TextWords int
	// DistanceRows, when not nil, holds word-distance rows over Embeddings shared by every
	// SanText, SanText+, TEM and truncated Gumbel mechanism the run builds, at every ε and set
	// draw (one per run; nil: each mechanism computes its own). Sharing changes speed, never
	// output.
	DistanceRows *expmech.DistanceRows

	memoMu sync.Mutex
	memo   map[string]func() (any, error)
}

// distanceSharer is a mechanism that can read the run's shared distance rows (SanText, TEM,
// truncated Gumbel).
type distanceSharer interface {
	mechanisms.Mechanism
	ShareDistances(*expmech.DistanceRows)
}

// shareDistances hands a built distance mechanism the run's distance rows (Env.DistanceRows),
// keeping a construction error as it is.
func shareDistances[M distanceSharer](m M, err error) func(env *Env) (mechanisms.Mechanism, error) {
	return func(env *Env) (mechanisms.Mechanism, error) {
		if err != nil {
			return nil, err
		}
		if env.DistanceRows != nil {
			m.ShareDistances(env.DistanceRows)
		}
		return m, nil
	}
}

// Memo returns the value build makes for key, building it once per Env: builders use it to
// share expensive state (a language model) between the mechanisms built at each ε.
func (e *Env) Memo(key string, build func() (any, error)) (any, error) {
	e.memoMu.Lock()
	if e.memo == nil {
		e.memo = map[string]func() (any, error){}
	}
	get := e.memo[key]
	if get == nil {
		get = sync.OnceValues(build)
		e.memo[key] = get
	}
	e.memoMu.Unlock()
	return get()
}

// A PairMetric measures how much of an original document a private one keeps (defined in
// package utility, with the measures).
type PairMetric = utility.PairMetric

// Needs declares what a component reads from its Env besides its options, so that commands
// load exactly that (and nothing is guessed from names).
type Needs struct {
	// Vectors: Env.Embeddings (the vocabulary and its word vectors).
	Vectors bool
	// RawTexts: Env.RawTexts, the raw text of every corpus document.
	RawTexts bool
	// LanguageModel: a language model trained on Env.Corpus (which TrainingCorpus implies).
	LanguageModel bool
	// TrainingCorpus: Env.Corpus, normalised documents outside the evaluation authors.
	TrainingCorpus bool
}

// Or is the union of n and m.
func (n Needs) Or(m Needs) Needs {
	return Needs{Vectors: n.Vectors || m.Vectors, RawTexts: n.RawTexts || m.RawTexts,
		LanguageModel: n.LanguageModel || m.LanguageModel, TrainingCorpus: n.TrainingCorpus || m.TrainingCorpus || n.LanguageModel || m.LanguageModel}
}

// String lists the needs ("vectors, training corpus"), or "-" for none.
func (n Needs) String() string {
	var s []string
	for _, x := range []struct {
		on   bool
		name string
	}{{n.Vectors, "vectors"}, {n.RawTexts, "raw texts"}, {n.LanguageModel, "language model"}, {n.TrainingCorpus, "training corpus"}} {
		if x.on {
			s = append(s, x.name)
		}
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}

// What a mechanism releases (MechanismEntry.Releases).
const (
	// ReleaseTokens: a sequence of words, read in order.
	ReleaseTokens = "tokens"
	// ReleaseTermFrequencies: a term-frequency vector (a bag of words; the order carries nothing).
	ReleaseTermFrequencies = "term-frequency vectors"
)

// MechanismEntry describes a mechanism a config may name.
type MechanismEntry struct {
	Version     string
	Description string
	// UsesEpsilon: the config must give a list of ε (and the mechanism is built once per ε).
	UsesEpsilon bool
	// Epsilons is the range of ε the mechanism can represent (when UsesEpsilon).
	Epsilons mechanisms.EpsilonRange
	// Needs is what the mechanism reads from Env whatever its options (Spec may add to it).
	Needs Needs
	// Releases is ReleaseTokens or ReleaseTermFrequencies.
	Releases string
	// Cost is the expected cost of one cell of the mechanism relative to "none" (1), from the
	// per-cell times of configs/ci.toml and table1. It only balances `--shard` runs: a wrong
	// guess makes shards uneven, never results wrong; it must be positive.
	Cost float64
	// TextParams are the params `dptext obfuscate` sets when its command line does not, so
	// that the output reads as a text (emd: order = "keep", the words written back in place):
	// key → the value in TOML; nil for none.
	TextParams map[string]string
	// PrivacyTable, when not nil, writes the mechanism's document-level bounds computed over
	// the whole vocabulary, for n output words at each ε (`dptext privacy`); nil: the bound
	// needs no vocabulary-wide computation.
	PrivacyTable func(ctx context.Context, w io.Writer, store *embeddings.Store, epsilons []float64, n int, p configfile.Params) error
	// Spec decodes the options and builds the mechanism (a MechanismSpec).
	Spec MechanismBuilder
}

// ScorerEntry describes an attacker, classifier or utility measure a config may name.
type ScorerEntry struct {
	Version     string
	Description string
	Task        string
	// Distance marks a utility measure whose score grows as the private snippet moves away from
	// the original (a higher score keeps less): tables print it as is, but a `[verdict]`, which
	// reads every utility as "higher keeps more", refuses it.
	Distance bool
	// Ranks marks an attacker that scores every candidate (it builds an attackers.Ranker): a
	// `[verdict]` may match on the true author's reciprocal rank (attack_measure).
	Ranks bool
	// Needs is what the scorer reads from Env whatever its options (its spec may add to it).
	Needs Needs
	// Classifier builds an attacker or topic classifier (tasks author and topic; a ScorerSpec).
	Classifier ScorerBuilder[learn.Classifier]
	// Metric builds a utility measure (task utility; a ScorerSpec).
	Metric ScorerBuilder[PairMetric]
}

// MechanismBuilder decodes a mechanism's params table into its typed options; MechanismSpec
// is the implementation.
type MechanismBuilder interface {
	decode(p configfile.Params, base Needs) (*MechanismOptions, error)
	defaults() any
}

// MechanismOptions are a mechanism's parameters, decoded once and ready to build at any ε.
type MechanismOptions struct {
	needs    Needs
	files    []InputFile
	baseline bool
	build    func(env *Env, eps float64) (mechanisms.Mechanism, error)
	accepts  func(env *Env, eps float64) error // nil: no check short of Build
}

// InputFile is a file or folder a mechanism reads besides the corpus and the embeddings (a
// trained model, a dictionary): its contents are part of a run's fingerprint, so results are
// never reused once it changes.
type InputFile struct {
	// Key is the params key that names it; Role names it in the run's manifest.
	Key, Role string
	// Path is the path as the params table gives it; ConfigRelative says that a relative Path
	// is read relative to the config's folder (else to the working directory).
	Path           string
	ConfigRelative bool
}

// Files lists the data files these options make the mechanism read.
func (o *MechanismOptions) Files() []InputFile { return o.files }

// Needs is what the mechanism with these options reads from Env.
func (o *MechanismOptions) Needs() Needs { return o.needs }

// Baseline says whether these options release the original text in order (see
// MechanismSpec.Baseline).
func (o *MechanismOptions) Baseline() bool { return o.baseline }

// Build makes the mechanism at ε (ignored by mechanisms without ε).
func (o *MechanismOptions) Build(env *Env, eps float64) (mechanisms.Mechanism, error) {
	return o.build(env, eps)
}

// CheckEpsilon returns the error Build would return at ε on env's data, found without Build's
// expensive work (see MechanismSpec.Accepts); checked is false when these options have no such
// check, and then only Build tells.
func (o *MechanismOptions) CheckEpsilon(env *Env, eps float64) (checked bool, err error) {
	if o.accepts == nil {
		return false, nil
	}
	return true, o.accepts(env, eps)
}

// MechanismSpec is a mechanism's typed options: their defaults, what they need, and the
// constructor.
type MechanismSpec[O any] struct {
	// Defaults returns the options a params table overrides.
	Defaults func() O
	// Needs, when not nil, adds what these options need to the entry's Needs.
	Needs func(O) Needs
	// Files, when not nil, lists the data files these options make Build read (see InputFile);
	// every file a mechanism reads must be listed here, or a changed file would go unnoticed.
	Files func(O) []InputFile
	// Baseline, when not nil, says whether these options release the original text in order:
	// the first such mechanism of a config is the reference of the relative_* rows.
	Baseline func(O) bool
	// Build makes the mechanism at ε from the decoded options.
	Build func(env *Env, eps float64, o O) (mechanisms.Mechanism, error)
	// Accepts, when not nil, returns the error Build would return at ε on env's data, without
	// Build's expensive part (SynTF's ℓ, a pass over every pair of words): the ε search asks
	// it of the ε it proposes, between its rounds, while no cell runs, and the cells then
	// build the mechanism on the workers. Nil: the search builds the mechanism to find out
	// (and the cells reuse it).
	Accepts func(env *Env, eps float64, o O) error
}

func (s MechanismSpec[O]) defaults() any { o := s.Defaults(); return &o }

func (s MechanismSpec[O]) decode(p configfile.Params, base Needs) (*MechanismOptions, error) {
	o := s.Defaults()
	if err := p.Decode(&o); err != nil {
		return nil, err
	}
	if s.Needs != nil {
		base = base.Or(s.Needs(o))
	}
	var files []InputFile
	if s.Files != nil {
		files = s.Files(o)
	}
	opts := &MechanismOptions{needs: base, files: files, baseline: s.Baseline != nil && s.Baseline(o), build: func(env *Env, eps float64) (mechanisms.Mechanism, error) {
		return s.Build(env, eps, o)
	}}
	if s.Accepts != nil {
		opts.accepts = func(env *Env, eps float64) error { return s.Accepts(env, eps, o) }
	}
	return opts, nil
}

// ScorerBuilder decodes a scorer's params table into its typed options; ScorerSpec is the
// implementation. T is learn.Classifier or PairMetric.
type ScorerBuilder[T any] interface {
	decode(p configfile.Params, base Needs) (*ScorerOptions[T], error)
	defaults() any
}

// ScorerOptions are a scorer's parameters, decoded once and ready to build.
type ScorerOptions[T any] struct {
	needs Needs
	files []InputFile
	build func(env *Env) (T, error)
}

// Needs is what the scorer with these options reads from Env.
func (o *ScorerOptions[T]) Needs() Needs { return o.needs }

// Files lists the data files these options make the scorer read.
func (o *ScorerOptions[T]) Files() []InputFile { return o.files }

// Build makes the scorer.
func (o *ScorerOptions[T]) Build(env *Env) (T, error) { return o.build(env) }

// ScorerSpec is a scorer's typed options: their defaults, what they need, and the constructor
// of a T (learn.Classifier or PairMetric).
type ScorerSpec[O, T any] struct {
	// Defaults returns the options a params table overrides.
	Defaults func() O
	// Needs, when not nil, adds what these options need to the entry's Needs.
	Needs func(O) Needs
	// Files, when not nil, lists the data files these options make Build read (see InputFile);
	// every file a scorer reads must be listed here, or a changed file would go unnoticed.
	Files func(O) []InputFile
	// Build makes the scorer from the decoded options.
	Build func(env *Env, o O) (T, error)
}

func (s ScorerSpec[O, T]) defaults() any { o := s.Defaults(); return &o }

func (s ScorerSpec[O, T]) decode(p configfile.Params, base Needs) (*ScorerOptions[T], error) {
	o := s.Defaults()
	if err := p.Decode(&o); err != nil {
		return nil, err
	}
	if s.Needs != nil {
		base = base.Or(s.Needs(o))
	}
	var files []InputFile
	if s.Files != nil {
		files = s.Files(o)
	}
	return &ScorerOptions[T]{needs: base, files: files, build: func(env *Env) (T, error) { return s.Build(env, o) }}, nil
}

// Decode decodes p into the mechanism's typed options.
func (e MechanismEntry) Decode(p configfile.Params) (*MechanismOptions, error) {
	return e.Spec.decode(p, e.Needs)
}

// defaults returns a pointer to the entry's default options (for printing them).
func (e ScorerEntry) defaults() any {
	if e.Metric != nil {
		return e.Metric.defaults()
	}
	return e.Classifier.defaults()
}

// ScorerDecoded is a scorer's decoded options: a classifier's or a metric's (one is nil).
type ScorerDecoded struct {
	Classifier *ScorerOptions[learn.Classifier]
	Metric     *ScorerOptions[PairMetric]
}

// Needs is what the scorer reads from Env.
func (d ScorerDecoded) Needs() Needs {
	if d.Metric != nil {
		return d.Metric.Needs()
	}
	return d.Classifier.Needs()
}

// Files lists the data files the scorer reads.
func (d ScorerDecoded) Files() []InputFile {
	if d.Metric != nil {
		return d.Metric.Files()
	}
	return d.Classifier.Files()
}

// Decode decodes p into the scorer's typed options.
func (e ScorerEntry) Decode(p configfile.Params) (ScorerDecoded, error) {
	var d ScorerDecoded
	var err error
	if e.Metric != nil {
		d.Metric, err = e.Metric.decode(p, e.Needs)
	} else {
		d.Classifier, err = e.Classifier.decode(p, e.Needs)
	}
	return d, err
}

// NoOptions are the options of a component that takes none (an empty params table).
type NoOptions struct{}

// noneOptions is the identity's release order.
type noneOptions struct {
	// Order is "keep" (the original, default) or "bag" (the words shuffled).
	Order string `toml:"order"`
}

// expMechOptions adds the context rating's language model to the token sampler's options.
type expMechOptions struct {
	expmech.ExpMechOptions
	// LanguageModel configures the n-gram model of the context rating, trained on Env.Corpus.
	LanguageModel ngram.Options `toml:"language_model"`
}

// Mechanisms is the registry of mechanism names.
var Mechanisms = map[string]MechanismEntry{
	"none": {
		Version: "2", Description: `identity: the original text, the baseline row of every table (order = "bag": its words shuffled, the bag presentation)`,
		Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[noneOptions]{
			Defaults: func() noneOptions { return noneOptions{Order: mechanisms.OrderKeep} },
			Baseline: func(o noneOptions) bool { return o.Order != mechanisms.OrderBag },
			Build: func(_ *Env, _ float64, o noneOptions) (mechanisms.Mechanism, error) {
				return mechanisms.NewNone(o.Order)
			},
		},
	},
	"emd": {
		// Version 3: entries differing only in oov = "keep"/"drop" share their draws in a run
		// (experiments/runner/draws.go), so the later entry's outputs changed; Apply is unchanged.
		Version: "3", UsesEpsilon: true, Epsilons: metricdp.EMDEpsilonRange,
		Description: `EMD privacy (Fernandes, Dras, McIver 2019): per-word n-d Laplace noise on the embedding, nearest word; order = "bag": εN·EMD per document, "keep": ε·Σᵢd(xᵢ,x′ᵢ)`,
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 4,
		TextParams: map[string]string{"order": strconv.Quote(mechanisms.OrderKeep)}, // the words are written back in place
		Spec: MechanismSpec[metricdp.EMDOptions]{
			Defaults: metricdp.DefaultEMDOptions,
			Build: func(env *Env, eps float64, o metricdp.EMDOptions) (mechanisms.Mechanism, error) {
				return metricdp.NewEMD(env.Embeddings, eps, o)
			},
		},
	},
	"cmp": {
		Version: "1", UsesEpsilon: true, Epsilons: metricdp.EMDEpsilonRange,
		Description: "CMP (Feyisetan, Balle, Drake, Diethe, WSDM 2020): per-word n-d Laplace noise on the embedding, nearest word, released in place; ε·Σᵢd(xᵢ,x′ᵢ) per document",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[metricdp.CMPOptions]{
			Defaults: metricdp.DefaultCMPOptions,
			Build: func(env *Env, eps float64, o metricdp.CMPOptions) (mechanisms.Mechanism, error) {
				return metricdp.NewCMP(env.Embeddings, eps, o)
			},
		},
	},
	"mahalanobis": {
		Version: "1", UsesEpsilon: true, Epsilons: metricdp.EMDEpsilonRange,
		Description: "Mahalanobis (Xu, Aggarwal, Feyisetan, Teissier, PrivateNLP 2020): elliptical noise shaped by λΣ+(1−λ)I, nearest word (Euclidean), in place; ε·Σᵢ‖xᵢ−x′ᵢ‖_{Σ′⁻¹} (Mahalanobis norm) per document",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[metricdp.MahalanobisOptions]{
			Defaults: metricdp.DefaultMahalanobisOptions,
			Build: func(env *Env, eps float64, o metricdp.MahalanobisOptions) (mechanisms.Mechanism, error) {
				return metricdp.NewMahalanobis(env.Embeddings, eps, o)
			},
		},
	},
	"vickrey": {
		Version: "1", UsesEpsilon: true, Epsilons: metricdp.EMDEpsilonRange,
		Description: "Vickrey (Xu et al., PrivateNLP 2021): CMP or Mahalanobis noise (noise), then the second-nearest word with probability t·d₁/(t·d₁+(1−t)·d₂); the noise's guarantee (Euclidean or Mahalanobis)",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[metricdp.VickreyOptions]{
			Defaults: metricdp.DefaultVickreyOptions,
			Build: func(env *Env, eps float64, o metricdp.VickreyOptions) (mechanisms.Mechanism, error) {
				return metricdp.NewVickrey(env.Embeddings, eps, o)
			},
		},
	},
	"syntf": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "SynTF (Weggenmann, Kerschbaum 2018): n words sampled by the exponential mechanism from the document's term distribution; bounds εn, (ε+ln η)n, ℓn",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTermFrequencies, Cost: 2,
		PrivacyTable: synTFPrivacyTable,
		Spec: MechanismSpec[syntf.SynTFOptions]{
			Defaults: syntf.DefaultSynTFOptions,
			// tf-idf weighting learns document frequencies from the training corpus.
			Needs: func(o syntf.SynTFOptions) Needs { return Needs{TrainingCorpus: o.Weighting == "tfidf"} },
			Files: func(o syntf.SynTFOptions) []InputFile {
				if !o.Lemmatize {
					return nil
				}
				return []InputFile{{Key: "wordnet_dir", Role: "wordnet", Path: o.WordNetDir}}
			},
			Build: func(env *Env, eps float64, opts syntf.SynTFOptions) (mechanisms.Mechanism, error) {
				opts, err := synTFEnvOptions(env, opts)
				if err != nil {
					return nil, err
				}
				if opts.Weighting == "tfidf" {
					// Document frequencies come from the corpus outside the evaluation authors.
					tf := opts
					tf.Weighting, tf.TightBound = "tf", false
					m, err := syntf.NewSynTF(env.Embeddings, eps, tf)
					if err != nil {
						return nil, err
					}
					opts.IDF = m.FitIDF(env.Corpus)
				}
				return syntf.NewSynTF(env.Embeddings, eps, opts)
			},
			// Build's checks without ℓ (computed the same way at every ε) and without the
			// document frequencies (the corpus is valid whatever ε).
			Accepts: func(env *Env, eps float64, opts syntf.SynTFOptions) error {
				opts, err := synTFEnvOptions(env, opts)
				if err != nil {
					return err
				}
				opts.Weighting, opts.TightBound = "tf", false
				_, err = syntf.NewSynTF(env.Embeddings, eps, opts)
				return err
			},
		},
	},
	"random": {
		Version: "1", Description: "Random-R baseline: every word replaced by a uniformly drawn vocabulary word (ε = 0)",
		Needs: Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[NoOptions]{
			Defaults: func() NoOptions { return NoOptions{} },
			Build: func(env *Env, _ float64, _ NoOptions) (mechanisms.Mechanism, error) {
				return expmech.NewRandom(env.Embeddings.Words())
			},
		},
	},
	"scrub": {
		Version: "1", Description: "PII scrubber baseline: names learned from the corpus and numbers replaced or removed (no DP guarantee)",
		Needs: Needs{RawTexts: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[scrub.ScrubOptions]{
			Defaults: scrub.DefaultScrubOptions,
			Build: func(env *Env, _ float64, o scrub.ScrubOptions) (mechanisms.Mechanism, error) {
				return scrub.NewScrub(env.RawTexts, o)
			},
		},
	},
	"erae": {
		Version: "6", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "ER-AE (Bo et al.): exponential-mechanism sampling over a trained auto-encoder's Pr[x̃ᵢ = v], rating ∈ [0, 1], Δ = 1; ε per token, ε·l per document ((ε₁+ε)·l with candidates k and candidate_epsilon ε₁); model = file of `dptext train erae` (trained with the embedding reward)",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[erae.MechanismOptions]{Defaults: eraeDefaults, Files: eraeFiles, Build: eraeBuild(true)},
	},
	"ae-dp": {
		Version: "6", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "AE-DP, ER-AE's ablation (Bo et al.): erae's sampler over an auto-encoder trained without the embedding reward; ε per token, ε·l per document ((ε₁+ε)·l with candidates k and candidate_epsilon ε₁); model = file of `dptext train erae --no-reward`",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[erae.MechanismOptions]{Defaults: eraeDefaults, Files: eraeFiles, Build: eraeBuild(false)},
	},
	"expmech": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "order-preserving exponential-mechanism token sampling (ER-AE line), rating embedding | context | random; ε per token",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 3,
		Spec: MechanismSpec[expMechOptions]{
			Defaults: func() expMechOptions {
				return expMechOptions{ExpMechOptions: expmech.DefaultExpMechOptions(), LanguageModel: ngram.DefaultOptions()}
			},
			// The context rating is a language model trained on the training corpus.
			Needs: func(o expMechOptions) Needs {
				return Needs{LanguageModel: o.Rating == expmech.ExpMechRatingContext, TrainingCorpus: o.Rating == expmech.ExpMechRatingContext}
			},
			Build: func(env *Env, eps float64, opts expMechOptions) (mechanisms.Mechanism, error) {
				if opts.Rating == expmech.ExpMechRatingContext {
					lm, err := env.Memo(fmt.Sprintf("ngram/%+v", opts.LanguageModel), func() (any, error) {
						return ngram.TrainBidirectional(env.Embeddings.Words(), env.Corpus, opts.LanguageModel)
					})
					if err != nil {
						return nil, fmt.Errorf("language_model: %w", err)
					}
					opts.Context = lm.(*ngram.Bidirectional)
				}
				return expmech.NewExpMech(env.Embeddings, eps, opts.ExpMechOptions)
			},
		},
	},
	"santext": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "SanText (Yue et al. 2021): exponential mechanism with −Euclidean distance over the vocabulary, in place; ε·d_euc per word, ε·Σᵢd(xᵢ,x′ᵢ) per document",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[expmech.SanTextOptions]{
			Defaults: expmech.DefaultSanTextOptions,
			Build: func(env *Env, eps float64, o expmech.SanTextOptions) (mechanisms.Mechanism, error) {
				return shareDistances(expmech.NewSanText(env.Embeddings, eps, o))(env)
			},
		},
	},
	"santext+": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "SanText+ (Yue et al. 2021): outputs from the sensitive share w of least frequent words (default 0.9); other words sanitised with probability p (0.3); ε·d_euc between sensitive words only",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[expmech.SanTextOptions]{
			Defaults: expmech.DefaultSanTextPlusOptions,
			Build: func(env *Env, eps float64, o expmech.SanTextOptions) (mechanisms.Mechanism, error) {
				o.Plus = true
				return shareDistances(expmech.NewSanText(env.Embeddings, eps, o))(env)
			},
		},
	},
	"tem": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "TEM (Carvalho et al. 2023): truncated exponential mechanism, exponential mechanism on min(d_euc, γ), γ = (2/ε)ln((1−β)|V|/β), β = 0.001; ε·d_euc per word",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[expmech.TEMOptions]{
			Defaults: expmech.DefaultTEMOptions,
			Build: func(env *Env, eps float64, o expmech.TEMOptions) (mechanisms.Mechanism, error) {
				return shareDistances(expmech.NewTEM(env.Embeddings, eps, o))(env)
			},
		},
	},
	"truncated-gumbel": {
		Version: "2", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "truncated Gumbel (Carvalho et al. 2021): k ~ Poisson(ln(|V|−1)) nearest words, argmin of distance + Gumbel(0, b) noise truncated to ±Δ_max, b from ε by the paper's Lambert-W calibration (ε > (2(1+ln|V|)+3)/Δ_min); no finite bound between different words (a word's farthest word is never among its candidates), ε only sets the noise scale",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[expmech.TruncatedGumbelOptions]{
			Defaults: expmech.DefaultTruncatedGumbelOptions,
			Build: func(env *Env, eps float64, o expmech.TruncatedGumbelOptions) (mechanisms.Mechanism, error) {
				return shareDistances(expmech.NewTruncatedGumbel(env.Embeddings, eps, o))(env)
			},
		},
	},
	"custext": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "CusText (Chen et al. 2023): vocabulary partitioned into customised sets of the K nearest words (K = 20), exponential mechanism over normalised similarity; pure ε per word within a set",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[expmech.CusTextOptions]{Defaults: expmech.DefaultCusTextOptions, Build: buildCusText(false)},
	},
	"custext+": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "CusText+ (Chen et al. 2023): CusText with stopwords released unchanged",
		Needs:       Needs{Vectors: true}, Releases: ReleaseTokens, Cost: 1,
		Spec: MechanismSpec[expmech.CusTextOptions]{Defaults: expmech.DefaultCusTextOptions, Build: buildCusText(true)},
	},
}

// synTFEnvOptions completes SynTF's options from env (ℓ's cache, log, context and workers;
// --force recomputes ℓ) and checks that a cell's synthetic words fit in memory.
func synTFEnvOptions(env *Env, opts syntf.SynTFOptions) (syntf.SynTFOptions, error) {
	if opts.EllCacheDir == "" {
		opts.EllCacheDir = env.CacheDir
	}
	if env.Check {
		opts.EllCacheDir = ""
	}
	opts.EllRecompute = env.Force
	if err := env.fits(fmt.Sprintf("n = %d", opts.Length), float64(resources.BytesPerWord)*float64(opts.Length)*float64(env.CellDocs),
		fmt.Sprintf("%d bytes per synthetic word × n × %d documents of a cell", resources.BytesPerWord, env.CellDocs)); err != nil {
		return opts, err
	}
	opts.EllContext = env.Context
	if env.Log != nil {
		opts.EllLog = LogWriter(env.Log)
	}
	if opts.EllWorkers == 0 {
		opts.EllWorkers = env.Workers
	}
	return opts, nil
}

// synTFPrivacyTable writes SynTF's bounds εn, (ε + ln η)n and ℓn over the vocabulary of
// store (syntf.PrintSynTFPrivacy) for the options of p.
func synTFPrivacyTable(ctx context.Context, w io.Writer, store *embeddings.Store, epsilons []float64, n int, p configfile.Params) error {
	opts := syntf.DefaultSynTFOptions()
	if err := p.Decode(&opts); err != nil {
		return err
	}
	opts.EllContext = ctx
	return syntf.PrintSynTFPrivacy(w, store, epsilons, n, opts, 0)
}

// buildCusText builds CusText (plus: stopwords kept); the customised sets depend only on the
// vocabulary and K, so the mechanisms of an ε grid share them (Env.Memo).
func buildCusText(plus bool) func(env *Env, eps float64, o expmech.CusTextOptions) (mechanisms.Mechanism, error) {
	return func(env *Env, eps float64, o expmech.CusTextOptions) (mechanisms.Mechanism, error) {
		o.Plus = plus
		if env.Check && o.K > env.Embeddings.Len() {
			o.K = env.Embeddings.Len() // check's stand-in vocabulary is tiny; the real one is checked at run time
		}
		if o.K < 1 || o.K > env.Embeddings.Len() {
			return expmech.NewCusText(env.Embeddings, eps, o, nil) // reports the error
		}
		sets, err := env.Memo(fmt.Sprintf("custext-sets/%p/%d", env.Embeddings, o.K), func() (any, error) {
			return expmech.CusTextSets(env.Embeddings, o.K), nil
		})
		if err != nil {
			return nil, err
		}
		return expmech.NewCusText(env.Embeddings, eps, o, sets.([][]int))
	}
}

// fastTextOptions adds the choice of pretrained input vectors to the classifier's options.
type fastTextOptions struct {
	classifiers.FastTextOptions
	// Pretrained initialises the word rows from the run's embeddings (their dimension must
	// equal dim).
	Pretrained bool `toml:"pretrained"`
}

// Scorers is the registry of attacker, classifier and utility-measure names.
var Scorers = map[string]ScorerEntry{
	"sr-nn": {
		Version: "1", Task: TaskAuthor, Needs: Needs{Vectors: true},
		Description: "SRauth: 1-nearest neighbour of mean word embeddings (Fernandes et al. 2019, Sect. 5)",
		Classifier: ScorerSpec[classifiers.KNNOptions, learn.Classifier]{
			Defaults: func() classifiers.KNNOptions { o := classifiers.DefaultKNNOptions(); o.K = 1; return o },
			Build: func(env *Env, o classifiers.KNNOptions) (learn.Classifier, error) {
				return attackers.NewSRNN(env.Embeddings, o)
			},
		},
	},
	"koppel11": {
		Version: "1", Task: TaskAuthor, Ranks: true,
		Description: "DRauth: Koppel, Schler, Argamon 2011 impostors-style character 4-gram method as reproduced for PAN (modes default | compat | paper)",
		Classifier: ScorerSpec[attackers.KoppelOptions, learn.Classifier]{
			Defaults: func() attackers.KoppelOptions {
				o := attackers.DefaultKoppelOptions()
				// The protocol already cuts every text to the common length N (about 420 words),
				// below the reference code's 500-word minimum, which would drop every candidate.
				o.MinTrainWords = 0
				return o
			},
			Build: func(env *Env, opts attackers.KoppelOptions) (learn.Classifier, error) {
				if opts.Workers == 0 {
					opts.Workers = env.Workers
				}
				opts.Context = env.Context
				return attackers.NewKoppel(opts)
			},
		},
	},
	"char-ngram-svm": {
		Version: "1", Task: TaskAuthor, Ranks: true,
		Description: "tf-idf character n-grams (2-5) with a one-vs-rest linear SVM (not PAN's baseline: that is pan19-baseline; --reject pan19 calibrates it as the baseline does)",
		Classifier: ScorerSpec[attackers.CharNgramOptions, learn.Classifier]{
			Defaults: attackers.DefaultCharNgramOptions,
			Build: func(env *Env, o attackers.CharNgramOptions) (learn.Classifier, error) {
				// One text's n-gram list: about 6 characters a word, one n-gram per character
				// and size, 16 bytes each (a string header).
				chars, sizes := 6*float64(env.TextWords), float64(o.NgramMax)-float64(o.NgramMin)+1
				if err := env.fits(fmt.Sprintf("ngram_max = %d", o.NgramMax), 16*chars*sizes,
					fmt.Sprintf("16 bytes × %.0f characters of a text × %.0f n-gram sizes", chars, sizes)); err != nil {
					return nil, err
				}
				return attackers.NewCharNgram(o)
			},
		},
	},
	"pan19-baseline": {
		Version: "1", Task: TaskAuthor,
		Description: "the PAN 2019 attribution baseline (pan19-cdaa-baseline-svm.py): character 3-grams seen 5 times, max-abs scaling, one-vs-rest RBF SVMs with sigmoid calibration, unattributed when the top two probabilities differ by < 0.1",
		Classifier: ScorerSpec[attackers.PAN19Options, learn.Classifier]{
			Defaults: attackers.DefaultPAN19Options,
			Build: func(_ *Env, o attackers.PAN19Options) (learn.Classifier, error) {
				return attackers.NewPAN19(o)
			},
		},
	},
	"writeprints": {
		Version: "1", Task: TaskAuthor,
		Description: "WritePrints-limited stylometric features (no POS tags) with a linear SVM or multinomial NB",
		Classifier: ScorerSpec[attackers.WritePrintsOptions, learn.Classifier]{
			Defaults: attackers.DefaultWritePrintsOptions,
			Build: func(_ *Env, o attackers.WritePrintsOptions) (learn.Classifier, error) {
				return attackers.NewWritePrints(o)
			},
		},
	},
	"sr-knn-topic": {
		Version: "1", Task: TaskTopic, Needs: Needs{Vectors: true},
		Description: "SRtopic: 5-nearest-neighbour vote on mean word embeddings (Fernandes et al. 2019, Sect. 5)",
		Classifier: ScorerSpec[classifiers.KNNOptions, learn.Classifier]{
			Defaults: func() classifiers.KNNOptions { o := classifiers.DefaultKNNOptions(); o.K = 5; return o },
			Build: func(env *Env, o classifiers.KNNOptions) (learn.Classifier, error) {
				return classifiers.NewMeanEmbeddingKNN(env.Embeddings, o)
			},
		},
	},
	"fasttext": {
		Version: "1", Task: TaskTopic,
		Description: "DRtopic: fastText-style supervised classifier (averaged hashed word/n-gram rows, linear softmax, SGD)",
		Classifier: ScorerSpec[fastTextOptions, learn.Classifier]{
			Defaults: func() fastTextOptions { return fastTextOptions{FastTextOptions: classifiers.DefaultFastTextOptions()} },
			Needs:    func(o fastTextOptions) Needs { return Needs{Vectors: o.Pretrained} },
			Build: func(env *Env, o fastTextOptions) (learn.Classifier, error) {
				// The input rows (one per training word, at most the words of a cell's texts,
				// plus the hash buckets when n-grams are on) and the class rows, dim float32 each.
				rows := float64(env.TextWords)*float64(env.CellDocs) + float64(env.CellDocs)
				what := fmt.Sprintf("dim = %d", o.Dim)
				if o.WordNgrams > 1 || o.Maxn > 0 {
					rows += float64(o.Bucket)
					what += fmt.Sprintf(", bucket = %d", o.Bucket)
				}
				if err := env.fits(what, 4*float64(o.Dim)*rows,
					fmt.Sprintf("4 bytes × dim × up to %.0f rows", rows)); err != nil {
					return nil, err
				}
				o.Context = env.Context
				var pre *embeddings.Store
				if o.Pretrained {
					pre = env.Embeddings
				}
				return classifiers.NewFastText(o.FastTextOptions, pre)
			},
		},
	},
	"nb": {
		Version: "1", Task: TaskTopic,
		Description: "multinomial naive Bayes on word tf-idf (α = 0.01; SynTF's analyst)",
		Classifier: ScorerSpec[classifiers.TfidfNBOptions, learn.Classifier]{
			Defaults: classifiers.DefaultTfidfNBOptions,
			Build: func(_ *Env, o classifiers.TfidfNBOptions) (learn.Classifier, error) {
				return classifiers.NewTfidfNB(o)
			},
		},
	},
	"svm": {
		Version: "1", Task: TaskTopic,
		Description: "linear SVM (one-vs-rest, C = 1) on word tf-idf (SynTF's analyst)",
		Classifier: ScorerSpec[classifiers.TfidfSVMOptions, learn.Classifier]{
			Defaults: classifiers.DefaultTfidfSVMOptions,
			Build: func(_ *Env, o classifiers.TfidfSVMOptions) (learn.Classifier, error) {
				return classifiers.NewTfidfSVM(o)
			},
		},
	},
	"cosine": {
		Version: "2", Task: TaskUtility, Needs: Needs{Vectors: true},
		Description: "cosine similarity of the (centred) mean word embeddings of original and private snippet",
		Metric: ScorerSpec[utility.CosineOptions, PairMetric]{
			Defaults: utility.DefaultCosineOptions,
			Build: func(env *Env, o utility.CosineOptions) (PairMetric, error) {
				return utility.NewMeanCosine(env.Embeddings, o)
			},
		},
	},
	"style_l2": {
		Version: "1", Task: TaskUtility, Distance: true,
		Description: "L2 change of the stylometric feature vector (WritePrints-limited rates) between original and private snippet",
		Metric: ScorerSpec[NoOptions, PairMetric]{
			Defaults: func() NoOptions { return NoOptions{} },
			Build:    func(*Env, NoOptions) (PairMetric, error) { return utility.NewStyleL2(attackers.StyleVector) },
		},
	},
	"embf1": {
		Version: "2", Task: TaskUtility, Needs: Needs{Vectors: true, TrainingCorpus: true}, // idf from Env.Corpus
		Description: "BERTScore-style greedy-matching F1 of original and private words over the configured (centred) vectors, BERTScore's idf ln((M+1)/(df+1)) from the topic-training documents",
		Metric: ScorerSpec[utility.GreedyF1Options, PairMetric]{
			Defaults: utility.DefaultGreedyF1Options,
			Build: func(env *Env, o utility.GreedyF1Options) (PairMetric, error) {
				return utility.NewGreedyF1(env.Embeddings, env.Corpus, o)
			},
		},
	},
	"chrf": {
		Version: "1", Task: TaskUtility,
		Description: "chrF (Popović 2015): character n-gram F-score (n ≤ 6, β = 2) of the private snippet against the original",
		Metric: ScorerSpec[utility.ChrFOptions, PairMetric]{
			Defaults: utility.DefaultChrFOptions,
			Build: func(_ *Env, o utility.ChrFOptions) (PairMetric, error) {
				return utility.NewChrF(o)
			},
		},
	},
	"wmd": {
		Version: "2", Task: TaskUtility, Distance: true, Needs: Needs{Vectors: true},
		Description: "Word Mover's distance between original and private snippet (exact transport, raw vectors)",
		Metric: ScorerSpec[NoOptions, PairMetric]{
			Defaults: func() NoOptions { return NoOptions{} },
			Build: func(env *Env, _ NoOptions) (PairMetric, error) {
				return utility.NewWordMoversDistance(env.Embeddings)
			},
		},
	},
}
