package protocol

import (
	"path/filepath"
	"strings"
	"testing"

	"dptext/corpus"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

// splitWith splits the fixture corpus (authorsPerTopic authors per topic, 2 stories of 400
// words each) under the fixture config with the given [protocol] lines and [[sets]] table.
func splitWith(t *testing.T, authorsPerTopic int, protocol, sets string) []*SetData {
	t.Helper()
	corpusPath, vecPath := fixtures.Corpus(t, authorsPerTopic, 2, 400)
	src := fixtures.Experiment(corpusPath, vecPath)
	src = strings.Replace(src, "[protocol]\n", "[protocol]\n"+protocol, 1)
	src = strings.Replace(src, "[[sets]]\nname = \"6\"\nauthors = 6\n", sets, 1)
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "s.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	docs, _, err := corpus.ReadJSONL(corpusPath, corpus.JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Split(cfg, docs, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snippets_per_author = 3 with one known text per author (200 + 100 words of 400-word
// stories): round 0 takes the last 100 words of the known text's story and of the other
// story, round 1 the next window back of the known story (words 200–300, just after the known
// text). Every author has 3 snippets from 2 documents, none overlapping the known text.
func TestSnippetsPerAuthorTakesDisjointWindows(t *testing.T) {
	sets := splitWith(t, 4, "snippets_per_author = 3\n", "[[sets]]\nname = \"6\"\nauthors = 6\n")
	s := sets[0]
	if len(s.Eval) != 18 || len(s.Known) != 6 {
		t.Fatalf("%d snippets and %d known texts, want 18 and 6", len(s.Eval), len(s.Known))
	}
	per := map[string][]string{}
	for i, a := range s.EvalAuthors {
		per[a] = append(per[a], s.EvalIDs[i])
	}
	for a, ids := range per {
		if len(ids) != 3 {
			t.Fatalf("author %s: %d snippets, want 3", a, len(ids))
		}
		docs := map[string]bool{}
		for _, id := range ids {
			docs[strings.SplitN(id, "@", 2)[0]] = true
		}
		if len(docs) != 2 {
			t.Errorf("author %s: snippets %v from %d documents, want 2", a, ids, len(docs))
		}
		if !strings.HasSuffix(ids[2], "@200-300") {
			t.Errorf("author %s: third snippet %s, want the window 200-300 of the known text's story", a, ids[2])
		}
	}
	// The default (0) keeps one snippet per story: the paper's protocol.
	if d := splitWith(t, 4, "", "[[sets]]\nname = \"6\"\nauthors = 6\n")[0]; len(d.Eval) != 6 {
		t.Errorf("default protocol gave %d snippets, want 6", len(d.Eval))
	}
	// 400-word stories give (400 − 200)/100 = 2 windows each, 4 per author: 5 is too many.
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	src := strings.Replace(fixtures.Experiment(corpusPath, vecPath), "[protocol]\n", "[protocol]\nsnippets_per_author = 5\n", 1)
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "s.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	docs, _, _ := corpus.ReadJSONL(corpusPath, corpus.JSONLOptions{})
	if _, err := Split(cfg, docs, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "cannot be placed") {
		t.Errorf("5 snippets from 4 windows: error %v, want the set to be infeasible", err)
	}
}

// all_authors takes the largest balanced set that leaves every topic a writer outside it: 4
// per topic in a corpus of 5 per topic.
func TestAllAuthorsTakesEveryEligibleAuthor(t *testing.T) {
	s := splitWith(t, 5, "", "[[sets]]\nname = \"all\"\nall_authors = true\n")[0]
	if len(s.Authors) != 8 {
		t.Fatalf("%d authors, want 8 (5 per topic, one left per topic for topic training)", len(s.Authors))
	}
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	base := fixtures.Experiment(corpusPath, vecPath)
	for _, c := range []struct{ from, to, want string }{
		{"authors = 6\n", "authors = 6\nall_authors = true\n", "sets[0].all_authors"},
		{"[protocol]\n", "[protocol]\nsnippets_per_author = -1\n", "protocol.snippets_per_author"},
	} {
		_, err := runconfig.ParseConfig("x.toml", strings.Replace(base, c.from, c.to, 1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one naming %s", c.to, err, c.want)
		}
	}
}
