package attribution

import (
	"reflect"
	"strings"
	"testing"

	"dptext/experiments/registry"
	"dptext/internal/learn"
)

// On the synthetic PAN 2019 collection (corpus/testdata/pan19-reuse: 3 problems, 15 unknown
// texts, 4 open-set) char-ngram-svm with the PAN 2019 baseline's rule (calibrated
// probabilities, threshold 0.1) leaves exactly the 4 open-set texts unattributed and names the
// other 11 right. Seeded and deterministic (no false failures). Mutants: without a reject rule
// the open-set texts are answered with candidates (11 of 15 at most); with the raw-score margin
// at the same threshold (the old "margin" rule) problem00001 rejects only one of its two
// open-set texts.
func TestPAN19RejectRuleOnCalibratedProbabilities(t *testing.T) {
	newAttacker := func() (learn.Classifier, error) {
		return buildClassifier(t, "char-ngram-svm", "", &registry.Env{Workers: 1})
	}
	run := func(rule string) []ProblemResult {
		res, err := Attribute(AttributeOptions{Input: "../../corpus/testdata/pan19-reuse", Output: t.TempDir(), Seed: 1,
			NewAttacker: newAttacker, Reject: RejectRule{Rule: rule, Threshold: 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	total := func(res []ProblemResult) (correct, rejected, open int) {
		for _, r := range res {
			correct, rejected, open = correct+r.Correct, rejected+r.Rejected, open+r.OpenSet
		}
		return
	}
	if c, r, o := total(run(RejectPAN19)); c != 15 || r != 4 || o != 4 {
		t.Errorf("pan19: %d of 15 right, %d rejected, %d open-set; want 15, 4, 4", c, r, o)
	}
	if c, _, _ := total(run(RejectNone)); c > 11 {
		t.Errorf("no reject rule: %d of 15 right, but 4 open-set texts cannot be right", c)
	}
	if res := run(RejectScoreMargin); res[0].Rejected != 1 {
		t.Errorf("score-margin on problem00001: %d rejected; this test expects the raw-score rule to differ from pan19 (1)", res[0].Rejected)
	}
	_, err := Attribute(AttributeOptions{Input: "../../corpus/testdata/pan19-reuse", Output: t.TempDir(),
		NewAttacker: func() (learn.Classifier, error) {
			return buildClassifier(t, "koppel11", "", &registry.Env{Workers: 1})
		},
		Reject: RejectRule{Rule: RejectPAN19, Threshold: 0.1}})
	if err == nil || !strings.Contains(err.Error(), "needs calibrated probabilities") {
		t.Errorf("pan19 with koppel11: %v", err)
	}
	for _, bad := range []RejectRule{{Rule: "margin", Threshold: 0.1}, {Rule: RejectPAN19, Threshold: 2}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// char-ngram-svm reads a PAN text raw, punctuation and case included, as the PAN baselines do;
// word-level attackers get its words.
func TestAttributionTokensRawForCharacterAttackers(t *testing.T) {
	c, err := buildClassifier(t, "char-ngram-svm", "", &registry.Env{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := attributionTokens(c, "Well, then!\nNo."); !reflect.DeepEqual(got, []string{"Well, then!\nNo."}) {
		t.Errorf("char-ngram-svm tokens %q, want the raw text", got)
	}
	k, err := buildClassifier(t, "koppel11", "", &registry.Env{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := attributionTokens(k, "Well, then!"); !reflect.DeepEqual(got, []string{"Well", "then"}) {
		t.Errorf("koppel11 tokens %q, want the words", got)
	}
}
