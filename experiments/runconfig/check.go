package runconfig

import (
	"fmt"
	"path/filepath"
	"strings"

	"dptext/embeddings"
	"dptext/experiments/registry"
)

// CheckComponents builds every mechanism (at every ε) and scorer of cfg against a tiny
// vocabulary, so that parameter values a constructor rejects are found without loading data.
func CheckComponents(cfg *Config) error {
	env := &registry.Env{Embeddings: tinyStore(), Workers: 1, Corpus: [][]string{{"alpha", "beta"}, {"gamma", "beta"}}, Check: true,
		ConfigDir: filepath.Dir(cfg.Path)}
	textSizes(env, cfg)
	for i, m := range cfg.Mechanisms {
		o, err := cfg.MechanismOptions(i)
		if err != nil {
			return err
		}
		for _, e := range m.Grid() {
			if _, err := o.Build(env, e.Value()); err != nil {
				return m.params.PlaceError(m.ID(), err)
			}
		}
	}
	for i, s := range cfg.Scorers {
		o, err := cfg.ScorerOptions(i)
		if err == nil {
			if o.Metric != nil {
				_, err = o.Metric.Build(env)
			} else {
				_, err = o.Classifier.Build(env)
			}
		}
		if err != nil {
			return s.params.PlaceError(s.ID(), err)
		}
	}
	return nil
}

// tinyStore is a three-word vocabulary for CheckComponents.
func tinyStore() *embeddings.Store {
	s, _ := embeddings.New([]string{"alpha", "beta", "gamma"}, 2, []float32{1, 0, 0, 1, 1, 1})
	return s
}

// Describe summarises a config in one line.
func Describe(cfg *Config) string {
	var sets, mechs, scorers []string
	cells := 0
	for _, s := range cfg.Sets {
		switch {
		case cfg.Protocol.Kind == ProtocolPAN && s.Authors == 0:
			sets = append(sets, s.Name+" (PAN problem: all its candidates)")
		case cfg.Protocol.Kind == ProtocolPAN:
			sets = append(sets, fmt.Sprintf("%s (PAN problem: %s)", s.Name, Plural(s.Authors, "candidate")))
		case s.AllAuthors:
			sets = append(sets, fmt.Sprintf("%s (all eligible authors)", s.Name))
		default:
			sets = append(sets, fmt.Sprintf("%s (%s)", s.Name, Plural(s.Authors, "author")))
		}
	}
	for _, m := range cfg.Mechanisms {
		mechs = append(mechs, fmt.Sprintf("%s×%d", m.ID(), max(1, len(m.Epsilons))))
		cells += max(1, len(m.Epsilons))
	}
	for _, s := range cfg.Scorers {
		scorers = append(scorers, s.ID())
	}
	cells *= len(cfg.Sets) * cfg.Repeats
	return fmt.Sprintf("sets %s; mechanisms %s; scorers %s; %d repeats; %d cells", strings.Join(sets, ", "),
		strings.Join(mechs, ", "), strings.Join(scorers, ", "), cfg.Repeats, cells)
}

// plural writes n with the noun, in the plural unless n is 1 ("story" → "stories").
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
