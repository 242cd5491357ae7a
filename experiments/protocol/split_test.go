package protocol

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"dptext/corpus"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

func TestSplitFollowsTheProtocol(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 5, 3, 400)
	src := strings.Replace(fixtures.Experiment(corpusPath, vecPath), "[protocol]\n", "[protocol]\nstories_per_author = 2\n", 1)
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "s.toml"), src)
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
	perTopic := map[string]int{}
	for _, a := range s.Authors {
		perTopic[s.AuthorTopic[a]]++
	}
	if len(s.Authors) != 6 || perTopic["sea"] != 3 || perTopic["land"] != 3 {
		t.Fatalf("authors %v not balanced over topics: %v", s.Authors, perTopic)
	}
	if len(s.Eval) != 12 || len(s.Known) != 12 {
		t.Fatalf("2 stories per author should give 12 snippets and 12 known texts, got %d and %d", len(s.Eval), len(s.Known))
	}
	for _, d := range append(append([][]string{}, s.Known...), s.Eval...) {
		if len(d) != s.N {
			t.Fatalf("a text of %d words, want the common length N = %d", len(d), s.N)
		}
	}
	// The unknown snippet comes from the end of the story, the known text from its start:
	// the generated stories have 400 words, so with 200 + 100 words they cannot overlap.
	// No topic training chunk may come from an evaluation author: each generated author has
	// its own habit words.
	training := map[string]bool{}
	for _, chunk := range append(append([][]string{}, s.TopicTrain...), s.TopicValidation...) {
		for _, w := range chunk {
			training[w] = true
		}
	}
	habit := func(author string) string { // author-<topic>-<i> writes quirk<topic index>x<i>
		var topic string
		var i int
		fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(author, "author-"), "-", " "), "%s %d", &topic, &i)
		return fmt.Sprintf("quirk%dx%d", map[string]int{"sea": 0, "land": 1}[topic], i)
	}
	inSet := map[string]bool{}
	for _, a := range s.Authors {
		inSet[a] = true
		if training[habit(a)] {
			t.Fatalf("a topic training chunk contains %q, a habit of evaluation author %s", habit(a), a)
		}
	}
	others := 0
	for _, d := range docs {
		if !inSet[d.Author] && training[habit(d.Author)] {
			others++
		}
	}
	if others == 0 {
		t.Fatal("no habit of the other authors in the topic training data: the disjointness check cannot fail")
	}
	if len(s.TopicTrain)+len(s.TopicValidation) == 0 {
		t.Fatal("no topic training data")
	}
}
