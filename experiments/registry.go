package experiments

import (
	"dptext/embeddings"
	"dptext/learn"
	"dptext/mechanisms"
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

type noOptions struct{}

// Mechanisms is the registry of mechanism names.
var Mechanisms = map[string]MechanismEntry{
	"none": {
		Version: "1", Description: "identity: the original text, the baseline row of every table",
		Options: func() any { return &noOptions{} },
		Build: func(*Env, float64, any) (mechanisms.Mechanism, error) { return mechanisms.None{}, nil },
	},
}

// Scorers is the registry of attacker, classifier and utility-measure names.
var Scorers = map[string]ScorerEntry{}
