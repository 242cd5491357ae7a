package synth

import (
	"os"
	"path/filepath"
	"testing"

	"dptext/corpus"
)

// The generated collections read back in the layouts they imitate, and equal options give
// byte-identical files.
func TestCollectionsReadBack(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := WritePAN(a, PAN2018()); err != nil {
		t.Fatal(err)
	}
	if err := WritePAN(b, PAN2018()); err != nil {
		t.Fatal(err)
	}
	problems, _, err := corpus.ReadPANProblems(a, corpus.PANOptions{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 2 || len(problems[0].Candidates) != 5 || len(problems[0].Unknown) != 15 {
		t.Fatalf("PAN 2018: %d problems", len(problems))
	}
	if _, err := os.Stat(filepath.Join(a, "problem00001", "fandom-info.json")); err == nil {
		t.Error("PAN 2018 layout has fandom-info.json")
	}
	x, _ := os.ReadFile(filepath.Join(a, "problem00002", "unknown", "unknown00007.txt"))
	y, _ := os.ReadFile(filepath.Join(b, "problem00002", "unknown", "unknown00007.txt"))
	if len(x) == 0 || string(x) != string(y) {
		t.Error("two collections with equal options differ")
	}
	dir := t.TempDir()
	o := CrossTopic()
	o.MinWords, o.MaxWords, o.DocsPerAuthor = 50, 60, 1
	if err := WriteDir(dir, o); err != nil {
		t.Fatal(err)
	}
	docs, _, err := corpus.ReadDir(dir, corpus.DirOptions{})
	if err != nil || len(docs) != 13*4 {
		t.Fatalf("cross-topic: %v, %d documents, want 52", err, len(docs))
	}
}
