package protocol

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"dptext/corpus"
	"dptext/corpus/synth"
	"dptext/experiments/runconfig"
)

// protocolConfig parses a config over the corpus at path with the given [protocol] lines and
// sets (name = authors).
func protocolConfig(t *testing.T, format, path, protocol string, sets ...int) *runconfig.Config {
	t.Helper()
	dir := t.TempDir()
	vec := filepath.Join(dir, "v.txt")
	if err := os.WriteFile(vec, []byte("alpha 1 0\nbeta 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf("name = \"p\"\nseed = 7\nrepeats = 3\n[corpus]\nformat = %q\npath = %q\n[embeddings]\nformat = \"text\"\npath = %q\n[protocol]\n%s\n",
		format, path, vec, protocol)
	for _, n := range sets {
		src += fmt.Sprintf("[[sets]]\nname = \"%d\"\nauthors = %d\n", n, n)
	}
	src += "[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "c.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func checkSet(t *testing.T, s *SetData, docs []corpus.Document, topics int) {
	t.Helper()
	perTopic := map[string]int{}
	for _, a := range s.Authors {
		perTopic[s.AuthorTopic[a]]++
	}
	if len(perTopic) != topics || len(s.Topics) != topics {
		t.Errorf("set %s: authors over %v, want %d topics", s.Name, perTopic, topics)
	}
	lo, hi := len(s.Authors), 0
	for _, n := range perTopic {
		lo, hi = min(lo, n), max(hi, n)
	}
	if hi-lo > 1 {
		t.Errorf("set %s: unbalanced %v", s.Name, perTopic)
	}
	inSet := map[string]bool{}
	for _, a := range s.Authors {
		inSet[a] = true
	}
	for i, a := range s.EvalAuthors {
		if s.EvalTopics[i] != s.AuthorTopic[a] {
			t.Errorf("snippet %d of %s has topic %s, author placed in %s", i, a, s.EvalTopics[i], s.AuthorTopic[a])
		}
	}
	if len(s.TopicTrain) == 0 {
		t.Errorf("set %s: no topic training data", s.Name)
	}
}

// Every author writes in every topic (13 × 4, as a newspaper's columnists): the old split put
// each author in one topic by majority (ties: the first), so at most 3 authors could be drawn.
func TestSplitCrossTopicDirectory(t *testing.T) {
	root := t.TempDir()
	o := synth.CrossTopic()
	o.MinWords, o.MaxWords, o.DocsPerAuthor = 700, 800, 2
	if err := synth.WriteDir(root, o); err != nil {
		t.Fatal(err)
	}
	docs, _, err := corpus.ReadDir(root, corpus.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, topics := range []int{2, 4} {
		cfg := protocolConfig(t, "dir", root, fmt.Sprintf("known_words = 400\nunknown_words = 200\ntopic_train_words = 400\ntopics = %d", topics), 10)
		sets, err := Split(cfg, docs, func(string, ...any) {})
		if err != nil {
			t.Fatalf("topics = %d: %v", topics, err)
		}
		checkSet(t, sets[0], docs, topics)
	}
	cfg := protocolConfig(t, "dir", root, "known_words = 400\nunknown_words = 200\ntopic_train_words = 400\ntopics = [\"sea\", \"forest\"]", 10)
	sets, err := Split(cfg, docs, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sets[0].Topics, []string{"forest", "sea"}) {
		t.Errorf("named topics gave %v", sets[0].Topics)
	}
	// 13 authors, 12 placed would leave one outside, but 13 leave none for topic training.
	cfg = protocolConfig(t, "dir", root, "known_words = 400\nunknown_words = 200\ntopic_train_words = 400", 13)
	_, err = Split(cfg, docs, func(string, ...any) {})
	if err == nil || !strings.Contains(err.Error(), "largest feasible with these topics: 12 authors") {
		t.Errorf("13 of 13 authors: %v", err)
	}
}

// A PAN 2019-like collection: with language = "en" and topics = 5 the five target topics are
// chosen and 20- and 30-author sets fit; an impossible set gets a short computed error.
func TestSplitPAN2019(t *testing.T) {
	root := t.TempDir()
	if err := synth.WritePAN(root, synth.PAN2019()); err != nil {
		t.Fatal(err)
	}
	docs, skipped, err := corpus.ReadPAN(root, corpus.PANOptions{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if skipped[`problem in language "fr" (language = "en")`] != 2 {
		t.Errorf("skipped = %v", skipped)
	}
	proto := "known_words = 300\nunknown_words = 150\ntopic_train_words = 300\ntopics = 5"
	cfg := protocolConfig(t, "pan", root, proto, 20, 30)
	sets, err := Split(cfg, docs, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"problem00001-target", "problem00002-target", "problem00003-target", "problem00004-target", "problem00005-target"}
	for _, s := range sets {
		if !reflect.DeepEqual(s.Topics, want) {
			t.Errorf("set %s: topics %v, want the five target topics", s.Name, s.Topics)
		}
		checkSet(t, s, docs, 5)
		for _, a := range s.Authors {
			if corpus.OpenSetAuthor(a) {
				t.Errorf("open-set placeholder %s is an evaluation author", a)
			}
		}
	}
	// All 45 candidates fit (the open-set texts train the target topics); 46 do not.
	cfg = protocolConfig(t, "pan", root, proto, 46)
	_, err = Split(cfg, docs, func(string, ...any) {})
	if err == nil {
		t.Fatal("46 of 45 candidates accepted")
	}
	msg := err.Error()
	if len(msg) > 1500 || strings.Count(msg, "\n") > 6 || !strings.Contains(msg, "asks for 46 authors") ||
		!strings.Contains(msg, "largest feasible with these topics: 45 authors") {
		t.Errorf("error (%d bytes) should be a few lines with the computed largest set (5 targets × 9 candidates):\n%s", len(msg), msg)
	}
}

// Repeats redraw what resample says, deterministically.
func TestSplitResample(t *testing.T) {
	root := t.TempDir()
	o := synth.CrossTopic()
	o.MinWords, o.MaxWords, o.DocsPerAuthor = 700, 800, 3
	if err := synth.WriteDir(root, o); err != nil {
		t.Fatal(err)
	}
	docs, _, err := corpus.ReadDir(root, corpus.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	split := func(resample string) []*SetData {
		cfg := protocolConfig(t, "dir", root, "known_words = 400\nunknown_words = 200\ntopic_train_words = 400\nresample = \""+resample+"\"", 6)
		sets, err := Split(cfg, docs, func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		return sets
	}
	if s := split("none")[0]; s.Draws != nil || s.Draw(2) != s {
		t.Error("resample = none made draws")
	}
	sn := split("snippets")[0]
	if len(sn.Draws) != 3 {
		t.Fatalf("%d draws, want one per repeat", len(sn.Draws))
	}
	storiesDiffer := false
	for r := 1; r < 3; r++ {
		if !reflect.DeepEqual(sn.Draws[r].Authors, sn.Authors) {
			t.Errorf("snippets: repeat %d changed the authors", r)
		}
		storiesDiffer = storiesDiffer || !reflect.DeepEqual(sn.Draws[r].EvalIDs, sn.EvalIDs)
	}
	if !storiesDiffer {
		t.Error("snippets: every repeat drew the same stories (3 per author to choose from)")
	}
	au := split("authors")[0]
	authorsDiffer := false
	for r := 1; r < 3; r++ {
		authorsDiffer = authorsDiffer || !reflect.DeepEqual(au.Draws[r].Authors, au.Authors)
	}
	if !authorsDiffer {
		t.Error("authors: every repeat drew the same authors (6 of 13)")
	}
	again := split("authors")[0]
	for r := range au.Draws {
		if !reflect.DeepEqual(au.Draws[r].EvalIDs, again.Draws[r].EvalIDs) || !reflect.DeepEqual(au.Draws[r].TopicTrain, again.Draws[r].TopicTrain) {
			t.Errorf("repeat %d differs between two splits with the same seed", r)
		}
	}
}

// Topic validation holds out whole documents: no document has chunks on both sides.
func TestTopicValidationSplitsByDocument(t *testing.T) {
	var docs []corpus.Document
	for a := 0; a < 6; a++ {
		for d := 0; d < 4; d++ {
			topic := []string{"sea", "land"}[a%2]
			var words []string
			for i := 0; i < 400; i++ {
				words = append(words, fmt.Sprintf("doc%da%dmark", d, a), topic+"word", fmt.Sprintf("filler%d", i%7))
			}
			docs = append(docs, corpus.Document{ID: fmt.Sprintf("%d-%d", a, d), Author: fmt.Sprintf("w%d", a), Topic: topic, Text: strings.Join(words, " ")})
		}
	}
	cfg := protocolConfig(t, "dir", t.TempDir(), "known_words = 300\nunknown_words = 200\ntopic_train_words = 100\nvalidation_share = 0.3", 2)
	sets, err := Split(cfg, docs, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	s := sets[0]
	marks := func(chunks [][]string) map[string]bool {
		m := map[string]bool{}
		for _, c := range chunks {
			for _, w := range c {
				if strings.HasSuffix(w, "mark") {
					m[w] = true
				}
			}
		}
		return m
	}
	train, val := marks(s.TopicTrain), marks(s.TopicValidation)
	if len(val) == 0 || len(train) == 0 {
		t.Fatalf("train %d, validation %d documents", len(train), len(val))
	}
	for m := range val {
		if train[m] {
			t.Errorf("document %s has chunks in both topic training and validation", m)
		}
	}
}
