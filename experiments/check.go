package experiments

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"dptext/configfile"
	"dptext/embeddings"
	"dptext/learn"
)

// MechanismNames lists the registered mechanisms, sorted.
func MechanismNames() []string { return sortedKeys(Mechanisms) }

// ScorerNames lists the registered scorers, sorted.
func ScorerNames() []string { return sortedKeys(Scorers) }

// CheckComponents builds every mechanism (at every ε) and scorer of cfg against a tiny
// vocabulary, so that parameter values a constructor rejects are found without loading data.
func CheckComponents(cfg *Config) error {
	env := &Env{Embeddings: tinyStore(), Workers: 1, Corpus: [][]string{{"alpha", "beta"}, {"gamma", "beta"}}, Check: true,
		ConfigDir: filepath.Dir(cfg.Path)}
	textSizes(env, cfg)
	for i, m := range cfg.Mechanisms {
		o, err := cfg.mechanismOptions(i)
		if err != nil {
			return err
		}
		for _, e := range epsilonsOf(m) {
			if _, err := o.Build(env, e.Value()); err != nil {
				return m.params.PlaceError(m.ID(), err)
			}
		}
	}
	for i, s := range cfg.Scorers {
		o, err := cfg.scorerOpts(i)
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
			sets = append(sets, fmt.Sprintf("%s (PAN problem: %s)", s.Name, plural(s.Authors, "candidate")))
		case s.AllAuthors:
			sets = append(sets, fmt.Sprintf("%s (all eligible authors)", s.Name))
		default:
			sets = append(sets, fmt.Sprintf("%s (%s)", s.Name, plural(s.Authors, "author")))
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

// DecodeMechanism decodes params (the body of a TOML inline table, as ParseParams reads it,
// "command line" in errors) into the options of the registered mechanism name, and checks ε
// (ignored, and may be NaN, for mechanisms without ε). The options say what they need (Needs)
// and build the mechanism (Build).
func DecodeMechanism(name string, eps float64, params string) (*MechanismOptions, error) {
	entry, ok := Mechanisms[name]
	if !ok {
		return nil, fmt.Errorf("unknown mechanism %q; valid: %s", name, strings.Join(MechanismNames(), ", "))
	}
	if entry.UsesEpsilon {
		if err := entry.Epsilons.Check(eps); err != nil {
			if math.IsNaN(eps) {
				return nil, fmt.Errorf("mechanism %q needs --epsilon: %v", name, err)
			}
			return nil, fmt.Errorf("--epsilon %g for mechanism %q: %v", eps, name, err)
		}
	}
	p, err := configfile.ParseParams("command line", name, params)
	if err != nil {
		return nil, err
	}
	return entry.decode(p)
}

// DecodeClassifier decodes params (the body of a TOML inline table, see ParseParams) into the
// options of the registered attacker or topic classifier name.
func DecodeClassifier(name string, params string) (*ScorerOptions[learn.Classifier], error) {
	entry, ok := Scorers[name]
	if !ok || entry.Classifier == nil {
		var names []string
		for _, n := range ScorerNames() {
			if Scorers[n].Classifier != nil {
				names = append(names, n)
			}
		}
		return nil, fmt.Errorf("unknown attacker or classifier %q; valid: %s", name, strings.Join(names, ", "))
	}
	p, err := configfile.ParseParams("command line", name, params)
	if err != nil {
		return nil, err
	}
	return entry.Classifier.decode(p, entry.Needs)
}

// ComponentNeeds is what the registered mechanism or scorer name reads from its Env with
// params (the body of a TOML inline table, see ParseParams; "": its default options).
func ComponentNeeds(name string, params string) (Needs, error) {
	p, err := configfile.ParseParams("command line", name, params)
	if err != nil {
		return Needs{}, err
	}
	if e, ok := Mechanisms[name]; ok {
		o, err := e.decode(p)
		if err != nil {
			return Needs{}, err
		}
		return o.Needs(), nil
	}
	if e, ok := Scorers[name]; ok {
		o, err := e.decode(p)
		if err != nil {
			return Needs{}, err
		}
		return o.Needs(), nil
	}
	return Needs{}, fmt.Errorf("unknown component %q; valid: %s", name, strings.Join(append(MechanismNames(), ScorerNames()...), ", "))
}

// DefaultParams renders the default options of a registered mechanism or scorer as the TOML
// lines of a params table (empty when it has no options).
func DefaultParams(name string) (string, error) {
	var opts any
	if e, ok := Mechanisms[name]; ok {
		opts = e.Spec.defaults()
	} else if e, ok := Scorers[name]; ok {
		opts = e.defaults()
	} else {
		return "", fmt.Errorf("unknown component %q; valid: %s", name, strings.Join(append(MechanismNames(), ScorerNames()...), ", "))
	}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(opts); err != nil {
		return "", err
	}
	return b.String(), nil
}
