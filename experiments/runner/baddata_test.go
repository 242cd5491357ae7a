package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/internal/fixtures"
)

// Bad data files fail the run with an error naming the file (and line or offset).
func TestBadDataNamesTheFile(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	good, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := os.ReadFile(vecPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lines := strings.SplitAfter(string(good), "\n")
	cases := []struct {
		name, corpus, vectors string
		want                  []string
	}{
		{"invalid json", write("badjson.jsonl", []byte(lines[0]+"{not json\n")), vecPath, []string{"badjson.jsonl:2"}},
		{"missing author", write("noauthor.jsonl", []byte(lines[0]+`{"topic":"sea","text":"words here"}`+"\n")), vecPath, []string{"noauthor.jsonl:2", "author"}},
		{"invalid utf-8", write("utf8.jsonl", []byte(lines[0]+"{\"author\":\"a\",\"topic\":\"sea\",\"text\":\"bad \xff byte\"}\n")), vecPath, []string{"utf8.jsonl:2", "UTF-8"}},
		{"empty document", write("empty.jsonl", []byte(lines[0]+`{"author":"a","topic":"sea","text":"  "}`+"\n")), vecPath, []string{"empty.jsonl:2", "text"}},
		{"truncated vectors", corpusPath, write("trunc.txt", vecs[:len(vecs)/2]), []string{"trunc.txt"}},
		{"inconsistent dimensions", corpusPath, write("dims.txt", []byte(string(vecs)+"extra 1 2 3\n")), []string{"dims.txt", "line 137", "want 8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := fixtureConfig(t, c.corpus, c.vectors)
			err := runFixture(t, cfg, t.TempDir(), 1, context.Background(), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
