package registry

import (
	"fmt"
	"slices"
	"testing"
)

// onlyNeeds is an Env holding of full only what n declares: Embeddings for Vectors, RawTexts
// for RawTexts, Corpus for TrainingCorpus (or LanguageModel).
func onlyNeeds(full *Env, n Needs) *Env {
	e := &Env{Workers: full.Workers, Check: full.Check}
	if n.Vectors {
		e.Embeddings = full.Embeddings
	}
	if n.RawTexts {
		e.RawTexts = full.RawTexts
	}
	if n.TrainingCorpus || n.LanguageModel {
		e.Corpus = full.Corpus
	}
	return e
}

// needsMismatch says how a component built from an Env holding only what its Needs declare
// differs from the same component built from the full Env ("" when it does not).
func needsMismatch(full, only [][]string, errFull, errOnly error) string {
	switch {
	case errFull != nil:
		return fmt.Sprintf("fails to build from the full Env: %v", errFull)
	case errOnly != nil:
		return fmt.Sprintf("fails: %v", errOnly)
	case !slices.EqualFunc(full, only, slices.Equal):
		return "gives other outputs"
	}
	return ""
}

const needsAdvice = "declare every Env field Build reads in the entry's Needs (or its Spec's Needs func): Vectors for Env.Embeddings, RawTexts for Env.RawTexts, TrainingCorpus for Env.Corpus"

// TestNeedsDeclareWhatBuildReads: every mechanism and scorer, with its default options on the
// golden inputs, gives the same outputs from an Env that holds only what its Needs declare as
// from the full Env — the commands that load only what a component needs (`dptext obfuscate`,
// `attribute`, `audit`) then compute what a run computes. Deterministic (fixed seeds): a
// component reading an undeclared field fails unless that field changes none of its outputs
// on these inputs. The mutant, scrub with its RawTexts need dropped (its gazetteer then
// learns no name, so "alice" stays), is caught.
func TestNeedsDeclareWhatBuildReads(t *testing.T) {
	store, train, test, authors, _, raw := goldenInputs(t)
	full := &Env{Embeddings: store, Workers: 1, Corpus: train, RawTexts: raw, Check: true}
	mech := func(name string, e MechanismEntry) string {
		o, err := e.Decode(goldenParams(t, name, store, train))
		if err != nil {
			t.Fatal(err)
		}
		a, errA := mechanismOutputs(name, o, full, test)
		b, errB := mechanismOutputs(name, o, onlyNeeds(full, o.Needs()), test)
		return needsMismatch(a, b, errA, errB)
	}
	mutant := Mechanisms["scrub"]
	mutant.Needs = Needs{}
	if mech("scrub", mutant) == "" {
		t.Error("mutant: scrub without its RawTexts need passes")
	}
	var private [][]string
	for _, name := range MechanismNames() {
		if d := mech(name, Mechanisms[name]); d != "" {
			o, _ := Mechanisms[name].Decode(goldenParams(t, name, store, train))
			t.Errorf("mechanism %q built from an Env holding only what its Needs declare (%v) %s: %s", name, o.Needs(), d, needsAdvice)
		}
	}
	o, err := Mechanisms["random"].Decode(testParams(t, "random", ""))
	if err != nil {
		t.Fatal(err)
	}
	if private, err = mechanismOutputs("random", o, full, test); err != nil {
		t.Fatal(err)
	}
	pool := append(slices.Clip(test), private...)
	for _, name := range ScorerNames() {
		o, err := Scorers[name].Decode(testParams(t, name, ""))
		if err != nil {
			t.Fatal(err)
		}
		a, errA := scorerOutputs(name, o, full, train, authors, test, private, pool)
		b, errB := scorerOutputs(name, o, onlyNeeds(full, o.Needs()), train, authors, test, private, pool)
		if d := needsMismatch([][]string{a}, [][]string{b}, errA, errB); d != "" {
			t.Errorf("scorer %q built from an Env holding only what its Needs declare (%v) %s: %s", name, o.Needs(), d, needsAdvice)
		}
	}
}
