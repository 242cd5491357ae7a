package experiments

import (
	"context"
	"fmt"
	"sync"

	"dptext/attackers"
	"dptext/classifiers"
	"dptext/embeddings"
	"dptext/erae"
	"dptext/learn"
	"dptext/mechanisms"
	"dptext/ngram"
)

// Scorer tasks: what a scorer's labels are, which fixes its chance level and its training data.
const (
	// TaskAuthor: an authorship attacker, trained on the known texts of the set's authors and
	// asked who wrote each private snippet.
	TaskAuthor = "author"
	// TaskTopic: a topic classifier, trained on documents of other authors and asked the topic of
	// each private snippet.
	TaskTopic = "topic"
	// TaskUtility: a measure over (original, private) snippet pairs.
	TaskUtility = "utility"
)

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
	// Check marks a build by `dptext check`: components write nothing (no cache, even one
	// their options name).
	Check bool
	// RawTexts are the raw texts of every corpus document (for heuristics such as learning
	// which words are names).
	RawTexts []string

	memoMu sync.Mutex
	memo   map[string]*lazy[any]
}

// Memo returns the value build makes for key, building it once per Env: builders use it to
// share expensive state (a language model) between the mechanisms built at each ε.
func (e *Env) Memo(key string, build func() (any, error)) (any, error) {
	e.memoMu.Lock()
	if e.memo == nil {
		e.memo = map[string]*lazy[any]{}
	}
	l := e.memo[key]
	if l == nil {
		l = &lazy[any]{}
		e.memo[key] = l
	}
	e.memoMu.Unlock()
	l.once.Do(func() { l.val, l.err = build() })
	return l.val, l.err
}

// A PairMetric measures how much of an original document a private one keeps.
type PairMetric interface {
	Measure(original, private []string) float64
}

// MechanismEntry describes a mechanism a config may name.
type MechanismEntry struct {
	Version     string
	Description string
	// UsesEpsilon: the config must give a list of ε (and the mechanism is built once per ε).
	UsesEpsilon bool
	// Epsilons is the range of ε the mechanism can represent (when UsesEpsilon).
	Epsilons mechanisms.EpsilonRange
	// Options returns a pointer to the mechanism's options struct holding the defaults.
	Options func() any
	// Build makes the mechanism from decoded options (as returned by Options).
	Build func(env *Env, epsilon float64, opts any) (mechanisms.Mechanism, error)
}

// ScorerEntry describes an attacker, classifier or utility measure a config may name.
type ScorerEntry struct {
	Version     string
	Description string
	Task        string
	Options     func() any
	// Classifier builds an attacker or topic classifier (tasks author and topic).
	Classifier func(env *Env, opts any) (learn.Classifier, error)
	// Metric builds a utility measure (task utility).
	Metric func(env *Env, opts any) (PairMetric, error)
}

// build decodes p into fresh options and makes the mechanism.
func (e MechanismEntry) build(env *Env, eps float64, p Params) (mechanisms.Mechanism, error) {
	o := e.Options()
	if err := p.decodeInto(o); err != nil {
		return nil, err
	}
	return e.Build(env, eps, o)
}

// classifier decodes p into fresh options and makes the attacker or topic classifier.
func (e ScorerEntry) classifier(env *Env, p Params) (learn.Classifier, error) {
	o := e.Options()
	if err := p.decodeInto(o); err != nil {
		return nil, err
	}
	return e.Classifier(env, o)
}

// metric decodes p into fresh options and makes the utility measure.
func (e ScorerEntry) metric(env *Env, p Params) (PairMetric, error) {
	o := e.Options()
	if err := p.decodeInto(o); err != nil {
		return nil, err
	}
	return e.Metric(env, o)
}

type noOptions struct{}

// noneOptions is the identity's release order.
type noneOptions struct {
	// Order is "keep" (the original, default) or "bag" (the words shuffled).
	Order string `toml:"order"`
}

// expMechOptions adds the context rating's language model to the token sampler's options.
type expMechOptions struct {
	mechanisms.ExpMechOptions
	// LanguageModel configures the n-gram model of the context rating, trained on Env.Corpus.
	LanguageModel ngram.Options `toml:"language_model"`
}

// Mechanisms is the registry of mechanism names.
var Mechanisms = map[string]MechanismEntry{
	"none": {
		Version: "2", Description: `identity: the original text, the baseline row of every table (order = "bag": its words shuffled, the bag presentation)`,
		Options: func() any { return &noneOptions{Order: mechanisms.OrderKeep} },
		Build: func(_ *Env, _ float64, o any) (mechanisms.Mechanism, error) {
			return mechanisms.NewNone(o.(*noneOptions).Order)
		},
	},
	"emd": {
		Version: "2", UsesEpsilon: true, Epsilons: mechanisms.EMDEpsilonRange,
		Description: `EMD privacy (Fernandes, Dras, McIver 2019): per-word n-d Laplace noise on the embedding, nearest word; order = "bag": εN·EMD per document, "keep": ε·Σᵢd(xᵢ,x′ᵢ)`,
		Options:     func() any { o := mechanisms.DefaultEMDOptions(); return &o },
		Build: func(env *Env, eps float64, o any) (mechanisms.Mechanism, error) {
			return mechanisms.NewEMD(env.Embeddings, eps, *o.(*mechanisms.EMDOptions))
		},
	},
	"cmp": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.EMDEpsilonRange,
		Description: "CMP (Feyisetan, Balle, Drake, Diethe, WSDM 2020): per-word n-d Laplace noise on the embedding, nearest word, released in place; ε·Σᵢd(xᵢ,x′ᵢ) per document",
		Options:     func() any { o := mechanisms.DefaultCMPOptions(); return &o },
		Build: func(env *Env, eps float64, o any) (mechanisms.Mechanism, error) {
			return mechanisms.NewCMP(env.Embeddings, eps, *o.(*mechanisms.CMPOptions))
		},
	},
	"mahalanobis": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.EMDEpsilonRange,
		Description: "Mahalanobis (Xu, Aggarwal, Feyisetan, Teissier, PrivateNLP 2020): elliptical noise shaped by λΣ+(1−λ)I, nearest word (Euclidean), in place; ε·Σᵢ‖xᵢ−x′ᵢ‖_{Σ′⁻¹} (Mahalanobis norm) per document",
		Options:     func() any { o := mechanisms.DefaultMahalanobisOptions(); return &o },
		Build: func(env *Env, eps float64, o any) (mechanisms.Mechanism, error) {
			return mechanisms.NewMahalanobis(env.Embeddings, eps, *o.(*mechanisms.MahalanobisOptions))
		},
	},
	"vickrey": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.EMDEpsilonRange,
		Description: "Vickrey (Xu et al., PrivateNLP 2021): CMP or Mahalanobis noise (noise), then the second-nearest word with probability t·d₁/(t·d₁+(1−t)·d₂); the noise's guarantee (Euclidean or Mahalanobis)",
		Options:     func() any { o := mechanisms.DefaultVickreyOptions(); return &o },
		Build: func(env *Env, eps float64, o any) (mechanisms.Mechanism, error) {
			return mechanisms.NewVickrey(env.Embeddings, eps, *o.(*mechanisms.VickreyOptions))
		},
	},
	"syntf": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "SynTF (Weggenmann, Kerschbaum 2018): n words sampled by the exponential mechanism from the document's term distribution; bounds εn, (ε+ln η)n, ℓn",
		Options:     func() any { o := mechanisms.DefaultSynTFOptions(); return &o },
		Build: func(env *Env, eps float64, o any) (mechanisms.Mechanism, error) {
			opts := *o.(*mechanisms.SynTFOptions)
			if opts.EllCacheDir == "" {
				opts.EllCacheDir = env.CacheDir
			}
			if env.Check {
				opts.EllCacheDir = ""
			}
			opts.EllContext = env.Context
			if opts.EllWorkers == 0 {
				opts.EllWorkers = env.Workers
			}
			if opts.Weighting == "tfidf" {
				// Document frequencies come from the corpus outside the evaluation authors.
				tf := opts
				tf.Weighting, tf.TightBound = "tf", false
				m, err := mechanisms.NewSynTF(env.Embeddings, eps, tf)
				if err != nil {
					return nil, err
				}
				opts.IDF = m.FitIDF(env.Corpus)
			}
			return mechanisms.NewSynTF(env.Embeddings, eps, opts)
		},
	},
	"random": {
		Version: "1", Description: "Random-R baseline: every word replaced by a uniformly drawn vocabulary word (ε = 0)",
		Options: func() any { return &noOptions{} },
		Build: func(env *Env, _ float64, _ any) (mechanisms.Mechanism, error) {
			return mechanisms.NewRandom(env.Embeddings.Words())
		},
	},
	"scrub": {
		Version: "1", Description: "PII scrubber baseline: names learned from the corpus and numbers replaced or removed (no DP guarantee)",
		Options: func() any { o := mechanisms.DefaultScrubOptions(); return &o },
		Build: func(env *Env, _ float64, o any) (mechanisms.Mechanism, error) {
			return mechanisms.NewScrub(env.RawTexts, *o.(*mechanisms.ScrubOptions))
		},
	},
	"erae": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "ER-AE (Bo et al.): exponential-mechanism sampling over a trained auto-encoder's Pr[x̃ᵢ = v], rating ∈ [0, 1], Δ = 1; ε per token, ε·l per document; model = file of `dptext train erae` (--no-reward: AE-DP)",
		Options:     func() any { return &erae.MechanismOptions{} },
		Build: func(env *Env, eps float64, o any) (mechanisms.Mechanism, error) {
			path := o.(*erae.MechanismOptions).Model
			if path == "" {
				return nil, fmt.Errorf("erae: model is empty: want the path of a model written by `dptext train erae --config CONFIG --out MODEL`")
			}
			m, err := env.Memo("erae/"+path, func() (any, error) { return erae.Load(path) })
			if err != nil {
				return nil, err
			}
			return erae.NewMechanism(m.(*erae.Model), eps)
		},
	},
	"expmech": {
		Version: "1", UsesEpsilon: true, Epsilons: mechanisms.ExponentialEpsilonRange,
		Description: "order-preserving exponential-mechanism token sampling (ER-AE line), rating embedding | context | random; ε per token",
		Options: func() any {
			return &expMechOptions{ExpMechOptions: mechanisms.DefaultExpMechOptions(), LanguageModel: ngram.DefaultOptions()}
		},
		Build: func(env *Env, eps float64, o any) (mechanisms.Mechanism, error) {
			opts := *o.(*expMechOptions)
			if opts.Rating == mechanisms.ExpMechRatingContext {
				lm, err := env.Memo(fmt.Sprintf("ngram/%+v", opts.LanguageModel), func() (any, error) {
					return ngram.TrainBidirectional(env.Embeddings.Words(), env.Corpus, opts.LanguageModel)
				})
				if err != nil {
					return nil, fmt.Errorf("language_model: %w", err)
				}
				opts.Context = lm.(*ngram.Bidirectional)
			}
			return mechanisms.NewExpMech(env.Embeddings, eps, opts.ExpMechOptions)
		},
	},
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
		Version: "1", Task: TaskAuthor,
		Description: "SRauth: 1-nearest neighbour of mean word embeddings (Fernandes et al. 2019, Sect. 5)",
		Options:     func() any { o := classifiers.DefaultKNNOptions(); o.K = 1; return &o },
		Classifier: func(env *Env, o any) (learn.Classifier, error) {
			return classifiers.NewMeanEmbeddingKNN(env.Embeddings, *o.(*classifiers.KNNOptions))
		},
	},
	"koppel11": {
		Version: "1", Task: TaskAuthor,
		Description: "DRauth: Koppel, Schler, Argamon 2011 impostors-style character 4-gram method as reproduced for PAN (modes default | compat | paper)",
		Options: func() any {
			o := attackers.DefaultKoppelOptions()
			// The protocol already cuts every text to the common length N (about 420 words),
			// below the reference code's 500-word minimum, which would drop every candidate.
			o.MinTrainWords = 0
			return &o
		},
		Classifier: func(env *Env, o any) (learn.Classifier, error) {
			opts := *o.(*attackers.KoppelOptions)
			if opts.Workers == 0 {
				opts.Workers = env.Workers
			}
			return attackers.NewKoppel(opts)
		},
	},
	"char-ngram-svm": {
		Version: "1", Task: TaskAuthor,
		Description: "tf-idf character n-grams (2-5) with a one-vs-rest linear SVM (the PAN baseline)",
		Options:     func() any { o := attackers.DefaultCharNgramOptions(); return &o },
		Classifier: func(_ *Env, o any) (learn.Classifier, error) {
			return attackers.NewCharNgram(*o.(*attackers.CharNgramOptions))
		},
	},
	"writeprints": {
		Version: "1", Task: TaskAuthor,
		Description: "WritePrints-limited stylometric features (no POS tags) with a linear SVM or multinomial NB",
		Options:     func() any { o := attackers.DefaultWritePrintsOptions(); return &o },
		Classifier: func(_ *Env, o any) (learn.Classifier, error) {
			return attackers.NewWritePrints(*o.(*attackers.WritePrintsOptions))
		},
	},
	"sr-knn-topic": {
		Version: "1", Task: TaskTopic,
		Description: "SRtopic: 5-nearest-neighbour vote on mean word embeddings (Fernandes et al. 2019, Sect. 5)",
		Options:     func() any { o := classifiers.DefaultKNNOptions(); o.K = 5; return &o },
		Classifier: func(env *Env, o any) (learn.Classifier, error) {
			return classifiers.NewMeanEmbeddingKNN(env.Embeddings, *o.(*classifiers.KNNOptions))
		},
	},
	"fasttext": {
		Version: "1", Task: TaskTopic,
		Description: "DRtopic: fastText-style supervised classifier (averaged hashed word/n-gram rows, linear softmax, SGD)",
		Options:     func() any { return &fastTextOptions{FastTextOptions: classifiers.DefaultFastTextOptions()} },
		Classifier: func(env *Env, o any) (learn.Classifier, error) {
			opts := o.(*fastTextOptions)
			var pre *embeddings.Store
			if opts.Pretrained {
				pre = env.Embeddings
			}
			return classifiers.NewFastText(opts.FastTextOptions, pre)
		},
	},
	"nb": {
		Version: "1", Task: TaskTopic,
		Description: "multinomial naive Bayes on word tf-idf (α = 0.01; SynTF's analyst)",
		Options:     func() any { o := classifiers.DefaultTfidfNBOptions(); return &o },
		Classifier: func(_ *Env, o any) (learn.Classifier, error) {
			return classifiers.NewTfidfNB(*o.(*classifiers.TfidfNBOptions))
		},
	},
	"svm": {
		Version: "1", Task: TaskTopic,
		Description: "linear SVM (one-vs-rest, C = 1) on word tf-idf (SynTF's analyst)",
		Options:     func() any { o := classifiers.DefaultTfidfSVMOptions(); return &o },
		Classifier: func(_ *Env, o any) (learn.Classifier, error) {
			return classifiers.NewTfidfSVM(*o.(*classifiers.TfidfSVMOptions))
		},
	},
	"cosine": {
		Version: "2", Task: TaskUtility,
		Description: "cosine similarity of the (centred) mean word embeddings of original and private snippet",
		Options:     func() any { o := classifiers.DefaultCosineOptions(); return &o },
		Metric: func(env *Env, o any) (PairMetric, error) {
			return classifiers.NewMeanCosine(env.Embeddings, *o.(*classifiers.CosineOptions))
		},
	},
	"style_l2": {
		Version: "1", Task: TaskUtility,
		Description: "L2 change of the stylometric feature vector (WritePrints-limited rates) between original and private snippet",
		Options:     func() any { return &noOptions{} },
		Metric:      func(*Env, any) (PairMetric, error) { return classifiers.NewStyleL2(attackers.StyleVector) },
	},
	"wmd": {
		Version: "2", Task: TaskUtility,
		Description: "Word Mover's distance between original and private snippet (exact transport, raw vectors)",
		Options:     func() any { return &noOptions{} },
		Metric: func(env *Env, _ any) (PairMetric, error) {
			return classifiers.NewWordMoversDistance(env.Embeddings)
		},
	},
}
