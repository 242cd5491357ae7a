package registry

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"dptext/experiments/report"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
)

// Every name a registered mechanism writes as a privacy row (its Guarantee's bounds) or a
// diagnostic (its Diagnose) is in report.PrivacyMetrics, the list a config's [report]
// privacy_metrics is checked against: a name missing there would make `check` refuse a valid
// config. Each mechanism is built with its defaults (and, where it has the option, each
// out-of-vocabulary policy, whose count has its own name) on the golden inputs and applied to
// the test documents and one with an unknown word. The mutant: a name dropped from the list
// (e.g. "oov_replaced") fails here.
func TestPrivacyMetricsListEveryMechanismsNames(t *testing.T) {
	store, train, test, _, _, raw := goldenInputs(t)
	env := &Env{Embeddings: store, Workers: 1, Corpus: train, RawTexts: raw, Check: true}
	docs := append(slices.Clone(test), []string{test[0][0], "zzzunknownword", test[0][1]})
	known := map[string]bool{}
	for _, n := range report.PrivacyMetrics {
		known[n] = true
	}
	seen := map[string]bool{}
	for _, name := range MechanismNames() {
		variants := []string{""}
		for _, oov := range []string{metricdp.OOVKeep, metricdp.OOVDrop, metricdp.OOVNearestKnown} {
			variants = append(variants, fmt.Sprintf("oov = %q", oov))
		}
		for _, v := range variants {
			body := v
			if name == "erae" || name == "ae-dp" {
				if v != "" {
					continue
				}
				body = "model = '" + goldenModel(t, name, store, train) + "'"
			}
			o, err := Mechanisms[name].Decode(testParams(t, name, body))
			if err != nil {
				if v != "" {
					continue // no oov option
				}
				t.Fatalf("%s: %v", name, err)
			}
			m, err := o.Build(env, 10)
			if err != nil {
				m, err = o.Build(env, 1000)
			}
			if err != nil {
				if v != "" {
					continue // a policy this mechanism does not offer
				}
				t.Fatalf("%s: %v", name, err)
			}
			for i, d := range docs {
				out := m.Apply(rngs.New(3, fmt.Sprintf("privacy-metrics/%s/%d", name, i)), d)
				names := slices.Collect(maps.Keys(m.Guarantee(d).Bounds))
				if dg, ok := m.(mechanisms.Diagnoser); ok {
					names = append(names, slices.Collect(maps.Keys(dg.Diagnose(d, out)))...)
				}
				for _, n := range names {
					seen[n] = true
					if !known[n] {
						t.Errorf("mechanism %s (%s) writes %q, which report.PrivacyMetrics lacks: add it there", name, v, n)
					}
				}
			}
		}
	}
	t.Logf("%d of the %d listed names seen", len(seen), len(known))
}
