package registry

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"dptext/experiments/report"
	"dptext/internal/configfile"
	"dptext/internal/learn"
	"dptext/internal/resources"
)

// MechanismNames lists the registered mechanisms, sorted.
func MechanismNames() []string { return slices.Sorted(maps.Keys(Mechanisms)) }

// ScorerNames lists the registered scorers, sorted.
func ScorerNames() []string { return slices.Sorted(maps.Keys(Scorers)) }

// DecodeMechanism decodes params (the body of a TOML inline table, as ParseParams reads it,
// "command line" in errors) into the options of the registered mechanism name, and checks ε
// (ignored, and may be absent, for mechanisms without ε). The options say what they need
// (Needs) and build the mechanism (Build).
func DecodeMechanism(name string, eps report.Epsilon, params string) (*MechanismOptions, error) {
	entry, ok := Mechanisms[name]
	if !ok {
		return nil, fmt.Errorf("unknown mechanism %q; valid: %s", name, strings.Join(MechanismNames(), ", "))
	}
	if entry.UsesEpsilon {
		if err := entry.Epsilons.Check(eps.Value()); err != nil {
			if !eps.Set() {
				return nil, fmt.Errorf("mechanism %q needs --epsilon: %v", name, err)
			}
			return nil, fmt.Errorf("--epsilon %s for mechanism %q: %v", eps, name, err)
		}
	}
	p, err := configfile.ParseParams("command line", name, params)
	if err != nil {
		return nil, err
	}
	return entry.Decode(p)
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
		o, err := e.Decode(p)
		if err != nil {
			return Needs{}, err
		}
		return o.Needs(), nil
	}
	if e, ok := Scorers[name]; ok {
		o, err := e.Decode(p)
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

// fits checks a builder's memory estimate for option what (e.g. "n = 1000000000") when env
// carries text sizes (CheckComponents sets them; 0 skips the check).
func (e *Env) fits(what string, bytes float64, how string) error {
	if e == nil || e.CellDocs == 0 {
		return nil
	}
	return resources.Fits(what, bytes, how)
}

// LogWriter adapts a log function (Env.Log) to an io.Writer: one call per write, its trailing
// line break dropped.
type LogWriter func(string, ...any)

// Write logs p.
func (l LogWriter) Write(p []byte) (int, error) {
	l("%s", trimNewline(p))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
