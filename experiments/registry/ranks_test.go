package registry

import (
	"testing"

	"dptext/attackers"
)

// TestRanksMarksTheRankers holds every attacker's Ranks mark to what it builds: marked ones
// are attackers.Ranker (a [verdict] on reciprocal rank would fail at run time otherwise),
// unmarked ones are not (a config on reciprocal rank would be refused for an attacker that
// could rank). Dropping the mark from koppel11, or adding it to pan19-baseline, fails.
func TestRanksMarksTheRankers(t *testing.T) {
	store, train, _, _, _, raw := goldenInputs(t)
	env := &Env{Embeddings: store, Workers: 1, Corpus: train, RawTexts: raw, Check: true}
	n := 0
	for _, name := range ScorerNames() {
		e := Scorers[name]
		if e.Task != TaskAuthor {
			if e.Ranks {
				t.Errorf("%s: marked Ranks but not an attacker", name)
			}
			continue
		}
		o, err := e.Decode(testParams(t, name, ""))
		if err != nil {
			t.Fatal(err)
		}
		c, err := o.Classifier.Build(env)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := c.(attackers.Ranker); ok != e.Ranks {
			t.Errorf("%s: Ranks = %v, but builds a Ranker: %v", name, e.Ranks, ok)
		}
		if e.Ranks {
			n++
		}
	}
	if n < 2 {
		t.Errorf("%d attackers rank: want koppel11 and char-ngram-svm at least", n)
	}
}
