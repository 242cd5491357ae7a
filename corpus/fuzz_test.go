package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzz targets feed arbitrary bytes to the readers: any input must give documents or an
// error, never a panic, and every document must have an author and a non-blank UTF-8 text.
// Seed inputs live in testdata/fuzz/<target>/.

func checkDocs(t *testing.T, docs []Document) {
	for _, d := range docs {
		if d.Author == "" || strings.TrimSpace(d.Text) == "" {
			t.Fatalf("document %q without author or text", d.ID)
		}
		if strings.TrimSpace(d.Author) != d.Author {
			t.Fatalf("author %q not trimmed", d.Author)
		}
	}
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"author":"a","topic":"t","text":"hello"}` + "\n"))
	f.Add([]byte("\ufeff" + `{"author":"a","text":"x","author":"b"}`))
	f.Add([]byte(`[{"author":"a","text":"x"}]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "c.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, req := range []bool{false, true} {
			docs, _, err := ReadJSONL(path, JSONLOptions{RequireTopic: req})
			if err == nil {
				checkDocs(t, docs)
			}
		}
	})
}

// fuzzTree builds a folder from a spec: lines "path<TAB>content" (content with \n escaped as
// \\n); a path ending in "@" + target makes a symbolic link to target instead.
func fuzzTree(t *testing.T, spec string) string {
	root := t.TempDir()
	for _, line := range strings.Split(spec, "\n") {
		rel, content, ok := strings.Cut(line, "\t")
		if !ok || rel == "" || filepath.IsAbs(rel) || strings.Contains(rel, "..") || strings.ContainsRune(rel, 0) {
			continue
		}
		path := filepath.Join(root, filepath.FromSlash(rel))
		if !strings.HasPrefix(path, root+string(filepath.Separator)) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			continue
		}
		if target, isLink := strings.CutPrefix(content, "@"); isLink {
			os.Symlink(filepath.Join(root, filepath.FromSlash(target)), path)
			continue
		}
		os.WriteFile(path, []byte(strings.ReplaceAll(content, `\n`, "\n")), 0o644)
	}
	return root
}

func FuzzReadDir(f *testing.F) {
	f.Add("sport/ann/1.txt\thello\nart/bob/2.txt\tworld")
	f.Add("sport/ann/1.txt\thi\nsport/ann/loop\t@\nart\t@sport")
	f.Add("a/b/c.txt\t\xff\xfe")
	f.Fuzz(func(t *testing.T, spec string) {
		docs, _, err := ReadDir(fuzzTree(t, spec), DirOptions{})
		if err == nil {
			checkDocs(t, docs)
			for _, d := range docs {
				if strings.Count(d.ID, "/") != 2 {
					t.Fatalf("document %q not at <topic>/<author>/<doc>.txt", d.ID)
				}
			}
		}
	})
}

// FuzzReadPAN varies the metadata files of a small PAN 2019 collection.
func FuzzReadPAN(f *testing.F) {
	f.Add(`[{"problem-name":"problem00001","language":"en"}]`,
		`{"unknown-folder":"unknown","candidate-authors":[{"author-name":"candidate00001"}]}`,
		`{"ground_truth":[{"unknown-text":"unknown00001.txt","true-author":"candidate00001"},{"unknown-text":"unknown00002.txt","true-author":"<UNK>"}]}`,
		`[{"known-text":"known00001","true-author":"candidate00001","fandom":"F"}]`)
	f.Add(`[{"problem-name":".."}]`, `{}`, `{"ground_truth":null}`, `{}`)
	f.Add(`[{"problem-name":"problem00001","language":"en"},{"problem-name":"problem00001"}]`,
		`{"unknown-folder":"candidate00001","candidate-authors":[{"author-name":"candidate00001"},{"author-name":"candidate00001"}]}`,
		`{"ground_truth":[{"unknown-text":"known00001.txt","true-author":"candidate00009"}]}`, `[{"unknown-text":"x"}]`)
	f.Fuzz(func(t *testing.T, collection, problem, truth, fandoms string) {
		root := t.TempDir()
		files := map[string]string{
			"collection-info.json":                       collection,
			"problem00001/problem-info.json":             problem,
			"problem00001/ground-truth.json":             truth,
			"problem00001/fandom-info.json":              fandoms,
			"problem00001/candidate00001/known00001.txt": "known text",
			"problem00001/unknown/unknown00001.txt":      "unknown one",
			"problem00001/unknown/unknown00002.txt":      "unknown two",
		}
		for rel, content := range files {
			path := filepath.Join(root, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(content), 0o644)
		}
		for _, lang := range []string{"", "en"} {
			problems, _, err := ReadPANProblems(root, PANOptions{Language: lang})
			if err == nil {
				for _, p := range problems {
					for _, u := range p.Unknown {
						if u.Author != "" && u.Author != UnknownAuthor && !isCandidate(p, u.Author) {
							t.Fatalf("unknown text %s attributed to non-candidate %q", u.File, u.Author)
						}
					}
				}
			}
			docs, _, err := ReadPAN(root, PANOptions{Language: lang})
			if err == nil {
				checkDocs(t, docs)
			}
		}
	})
}

func isCandidate(p PANProblem, name string) bool {
	for _, c := range p.Candidates {
		if c.Name == name {
			return true
		}
	}
	return false
}
