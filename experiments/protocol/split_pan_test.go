package protocol

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dptext/corpus"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
	"dptext/internal/text"
)

func panConfig(t *testing.T, extra string) *runconfig.Config {
	t.Helper()
	dir := t.TempDir()
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "pan.toml"), fixtures.PANRun(t, "../..", dir)+extra)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The pan protocol takes each problem's own texts: problem00002's candidates are W6, W1 (under
// the name of its first appearance, problem00001/candidate00001, whose known texts there are
// byte-identical to these and were dropped as duplicates by the reader: put back here) and W4;
// its unknown texts keep their true authors, and W7's open-set text — W7 is a candidate only in
// problem00003 — is open-set here. Mutant: reading the flattened corpus without the duplicates
// (before issue 25) leaves W1 without known texts in problem00002 (2 candidates, 6 known texts).
func TestSplitPANUsesEachProblemsOwnTexts(t *testing.T) {
	cfg := panConfig(t, "")
	docs, _, err := corpus.ReadPAN(fixtures.PANCollection(t, "../.."), corpus.PANOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sets, err := Split(cfg, docs, func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) })
	if err != nil {
		t.Fatal(err)
	}
	s := sets[1]
	wantAuthors := []string{"problem00002/candidate00001", "problem00001/candidate00001", "problem00002/candidate00003"}
	if !sameSet(s.Authors, wantAuthors) || len(s.Known) != 9 {
		t.Errorf("problem00002: candidates %v with %d known texts, want %v with 9", s.Authors, len(s.Known), wantAuthors)
	}
	wantTruth := []string{"problem00002/candidate00001", "problem00001/candidate00001", "problem00002/candidate00003", corpus.UnknownAuthor, "problem00002/candidate00001"}
	if !slices.Equal(s.EvalAuthors, wantTruth) {
		t.Errorf("problem00002 truths %v, want %v", s.EvalAuthors, wantTruth)
	}
	for i, id := range s.EvalIDs {
		if !strings.HasPrefix(id, "problem00002/unknown/") {
			t.Errorf("evaluation text %d is %s, not one of problem00002's unknown texts", i, id)
		}
	}
	for _, d := range append(slices.Clone(s.Known), s.Eval...) {
		if len(d) != s.N {
			t.Fatalf("a text of %d words, N = %d", len(d), s.N)
		}
	}
	// problem00001: u5 (W5) is a candidate's only in problem00003: open-set here, as is u4 (W4).
	if got := sets[0].EvalAuthors; got[3] != corpus.UnknownAuthor || got[4] != corpus.UnknownAuthor || got[0] != "problem00001/candidate00001" {
		t.Errorf("problem00001 truths %v", got)
	}
	if !strings.Contains(log.String(), "set problem00002: PAN problem with 3 candidates, 9 known and 5 unknown texts (1 open-set: best attainable accuracy 0.800, chance 0.267)") {
		t.Errorf("log:\n%s", log.String())
	}
	bad := panConfig(t, "")
	bad.Sets[0].Name = "problem00009"
	if _, err := Split(bad, docs, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "left out by [corpus] language); problems read: problem00001, problem00002, problem00003") {
		t.Errorf("unknown problem: %v", err)
	}
	bad = panConfig(t, "")
	bad.Sets[1].Authors = 4
	if _, err := Split(bad, docs, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "has 3 candidates") {
		t.Errorf("wrong candidate count: %v", err)
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// The pan protocol's config errors name the key: another corpus format, resampling, and a
// topic classifier (the unknown texts of a problem share one topic).
func TestPANProtocolConfigErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A jsonl corpus is a file: its path is one, so that the error is the protocol's.
	if err := os.WriteFile(filepath.Join(dir, "c.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := "name = \"x\"\n[corpus]\nformat = %s\npath = %q\n[protocol]\nkind = \"pan\"\n%s\n[[sets]]\nname = \"problem00001\"\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = %s\n"
	for _, c := range []struct{ format, proto, scorer, want string }{
		{`"jsonl"`, "", `"koppel11"`, `want [corpus] format = "pan"`},
		{`"pan"`, `resample = "authors"`, `"koppel11"`, `the pan protocol's texts are fixed by each problem`},
		{`"pan"`, "", `"fasttext"`, `there is no topic to classify`},
	} {
		_, err := runconfig.ParseConfig(filepath.Join(dir, "c.toml"), fmt.Sprintf(base, c.format, map[bool]string{true: "c.jsonl", false: "c"}[c.format == `"jsonl"`], c.proto, c.scorer))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s/%s/%s: %v, want %q", c.format, c.proto, c.scorer, err, c.want)
		}
	}
}

// The as-written texts are the stretch the normalised text was read from: rawPrefix keeps
// case, stopwords, punctuation and layout up to the word giving the n-th normalised word, and
// normalising it gives back exactly the set's text. Mutant: cutting the raw text after n
// words (stopwords counted) gives a shorter stretch and fails.
func TestRawPrefixIsTheNormalisedStretch(t *testing.T) {
	raw := "The  Harbour was quiet;\nthe ships, all of them, slept.  Then dawn came."
	if got, want := rawPrefix(raw, 100, 3), "The  Harbour was quiet;\nthe ships"; got != want {
		t.Errorf("rawPrefix(…, 3) = %q, want %q", got, want)
	}
	if got, want := rawPrefix(raw, 2, 3), "The  Harbour"; got != want {
		t.Errorf("rawPrefix with a limit of 2 words = %q, want %q", got, want)
	}
	docs, _, err := corpus.ReadPAN(fixtures.PANCollection(t, "../.."), corpus.PANOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sets, err := Split(panConfig(t, ""), docs, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		if len(s.KnownRaw) != len(s.Known) || len(s.EvalRaw) != len(s.Eval) {
			t.Fatalf("set %s: %d/%d raw texts for %d/%d", s.Name, len(s.KnownRaw), len(s.EvalRaw), len(s.Known), len(s.Eval))
		}
		for i, r := range append(slices.Clone(s.KnownRaw), s.EvalRaw...) {
			norm := append(slices.Clone(s.Known), s.Eval...)[i]
			if got := text.NormalizeText(r); !slices.Equal(got, norm) {
				t.Errorf("set %s, text %d: the raw stretch normalises to %d words, not the set's %d", s.Name, i, len(got), len(norm))
			}
		}
	}
}

// In the authorship protocol (Table 1's, here on a JSONL corpus) the as-written texts are
// the stretches the known text (from the story's start) and the snippet (from its end) were
// read from: each normalises to the set's text, and a snippet's stretch begins at a word, not
// at the story's start. Mutant: a snippet stretch taken from the story's start normalises to
// the known text's words and fails.
func TestAuthorshipSetsKeepTheTextsAsWritten(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 5, 3, 400)
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "s.toml"), fixtures.Experiment(corpusPath, vecPath))
	if err != nil {
		t.Fatal(err)
	}
	docs, _, err := corpus.ReadJSONL(corpusPath, corpus.JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sets, err := Split(cfg, docs, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	if len(s.KnownRaw) != len(s.Known) || len(s.EvalRaw) != len(s.Eval) {
		t.Fatalf("%d/%d raw texts for %d/%d", len(s.KnownRaw), len(s.EvalRaw), len(s.Known), len(s.Eval))
	}
	for i := range s.Known {
		if got := text.NormalizeText(s.KnownRaw[i]); !slices.Equal(got, s.Known[i]) {
			t.Errorf("known text %d: the raw stretch normalises to %v…, not the set's %v…", i, got[:3], s.Known[i][:3])
		}
	}
	for i := range s.Eval {
		if got := text.NormalizeText(s.EvalRaw[i]); !slices.Equal(got, s.Eval[i]) {
			t.Errorf("snippet %d: the raw stretch normalises to %v…, not the set's %v…", i, got[:3], s.Eval[i][:3])
		}
	}
}

// The log gives the topic training data in the caption's units and form: documents (the
// chunks the classifiers train on), the mean over the draws, as the caption's "topic
// training documents" fact (it used to give draw 0's count as "chunks"). Mutant: draw 0's
// count (10) fails.
func TestTopicTrainingLoggedAsTheCaption(t *testing.T) {
	draw := func(train, valid int) *SetData {
		return &SetData{TopicTrain: make([][]string, train), TopicValidation: make([][]string, valid)}
	}
	got := describeTopicTraining([]*SetData{draw(10, 4), draw(11, 4), draw(11, 4)}, 300)
	if want := "10.667 topic training and 4 validation documents (chunks of topic_train_words = 300 words; mean over 3 draws)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := describeTopicTraining([]*SetData{draw(4127, 8)}, 300); !strings.HasPrefix(got, "4127 topic training and 8 validation documents") || !strings.HasSuffix(got, "one draw)") {
		t.Errorf("one draw: %q", got)
	}
}
