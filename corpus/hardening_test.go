package corpus

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadJSONLInputProblems(t *testing.T) {
	for name, c := range map[string]struct {
		content   string
		fragments []string
	}{
		"repeated key":  {`{"author":"a","text":"x","author":"b"}`, []string{"c.jsonl:1", `key "author" appears twice`}},
		"array file":    {"[\n" + `{"author":"a","text":"x"}` + "\n]", []string{"c.jsonl:1", "JSON array", "one document object per line"}},
		"empty file":    {"", []string{"c.jsonl", "the file is empty"}},
		"only blank":    {"\n \n", []string{"no documents, only blank lines"}},
		"array line":    {`{"author":"a","text":"x"}` + "\n" + `[1]`, []string{"c.jsonl:2", "want an object", "an array"}},
		"trailing data": {`{"author":"a","text":"x"} {}`, []string{"c.jsonl:1", "after the object"}},
	} {
		root := writeTree(t, map[string]string{"c.jsonl": c.content})
		_, _, err := ReadJSONL(filepath.Join(root, "c.jsonl"), JSONLOptions{})
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		for _, f := range c.fragments {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("%s: error %q does not mention %q", name, err, f)
			}
		}
	}
}

func TestReadJSONLTopicBOMAuthorsDuplicates(t *testing.T) {
	content := "\ufeff" + `{"author":"ann ","topic":"sea","text":"one"}` + "\n" +
		`{"author":"ann","topic":"sea","text":"two"}` + "\n" +
		`{"author":"bob","topic":"land","text":"one"}` + "\n" +
		`{"author":"bob","text":"three"}` + "\n"
	path := filepath.Join(writeTree(t, map[string]string{"c.jsonl": content}), "c.jsonl")
	docs, skipped, err := ReadJSONL(path, JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.Author+"|"+d.Text)
	}
	if want := []string{"ann|one", "ann|two", "ann|three"}; !reflect.DeepEqual(got, want) {
		t.Errorf("docs = %v, want %v (BOM accepted, author trimmed, duplicate text dropped, bob merged into ann by their shared text)", got, want)
	}
	if skipped[reasonAuthorTrimmed] != 1 || skipped[reasonDuplicate] != 1 {
		t.Errorf("skipped = %v, want one trimmed author and one duplicate", skipped)
	}
	_, _, err = ReadJSONL(path, JSONLOptions{RequireTopic: true})
	wantErr(t, err, "c.jsonl:4", `"topic" is missing`)
}

func TestReadDirFollowsSymlinks(t *testing.T) {
	root := writeTree(t, map[string]string{"sport/ann/1.txt": "a1"})
	elsewhere := writeTree(t, map[string]string{"bob/2.txt": "b2", "bob/3.txt": "a1"})
	if err := os.Symlink(elsewhere, filepath.Join(root, "art")); err != nil {
		t.Fatal(err)
	}
	// A loop: a link inside an author folder back to the root.
	if err := os.Symlink(root, filepath.Join(root, "sport", "ann", "loop")); err != nil {
		t.Fatal(err)
	}
	docs, skipped, err := ReadDir(root, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.ID+"="+d.Topic+"|"+d.Author)
	}
	if want := []string{"art/bob/2.txt=art|bob", "art/bob/3.txt=art|bob"}; !reflect.DeepEqual(got, want) {
		t.Errorf("docs = %v, want %v", got, want)
	}
	if skipped[reasonDuplicate] != 1 || skipped["symbolic link to a folder on its own path (a loop; not followed)"] != 1 {
		t.Errorf("skipped = %v, want one duplicate (sport/ann/1.txt repeats art/bob/3.txt) and one loop", skipped)
	}
}

func panCollection(t *testing.T) string {
	root := cdaaCollection(t)
	// A second problem in French.
	files := map[string]string{
		"collection-info.json":                       `[{"problem-name":"problem00001","language":"en"},{"problem-name":"problem00002","language":"fr"}]`,
		"problem00002/problem-info.json":             `{"unknown-folder":"unknown","candidate-authors":[{"author-name":"candidate00001"}]}`,
		"problem00002/candidate00001/known00001.txt": "bonjour",
		"problem00002/unknown/unknown00001.txt":      "salut",
		"problem00002/ground-truth.json":             `{"ground_truth":[{"unknown-text":"unknown00001.txt","true-author":"candidate00001"}]}`,
	}
	for rel, content := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestReadPANLanguage(t *testing.T) {
	root := panCollection(t)
	all, skipped, err := ReadPANProblems(root, PANOptions{})
	if err != nil || len(all) != 2 || skipped.Total() != 0 {
		t.Fatalf("all languages: %v, %d problems, skipped %v", err, len(all), skipped)
	}
	en, skipped, err := ReadPANProblems(root, PANOptions{Language: "EN"})
	if err != nil || len(en) != 1 || en[0].Name != "problem00001" || en[0].Language != "en" {
		t.Fatalf("language en: %v %+v", err, en)
	}
	if skipped[`problem in language "fr" (language = "EN")`] != 1 {
		t.Errorf("skipped = %v", skipped)
	}
	_, _, err = ReadPAN(root, PANOptions{})
	wantErr(t, err, "problems in 2 languages", `"en": 1, "fr": 1`, "language =")
	docs, _, err := ReadPAN(root, PANOptions{Language: "fr"})
	if err != nil || len(docs) != 2 || docs[0].Text != "bonjour" {
		t.Errorf("language fr: %v %+v", err, docs)
	}
	_, _, err = ReadPANProblems(root, PANOptions{Language: "de"})
	wantErr(t, err, `no problem in language "de"`)
	_, _, err = ReadPANProblems(filepath.Join(root, "problem00001"), PANOptions{Language: "en"})
	wantErr(t, err, "language is not given")
}

func TestReadPANInputProblems(t *testing.T) {
	_, _, err := ReadPANProblems(filepath.Join(t.TempDir(), "nonexistent"), PANOptions{})
	wantErr(t, err, "does not exist")
	if strings.Contains(err.Error(), "layout") {
		t.Errorf("error %q speaks of a layout for a missing path", err)
	}
	root := cdaaCollection(t)
	os.WriteFile(filepath.Join(root, "problem00001/ground-truth.json"), []byte(`{"ground_truth":[{"unknown-text":"unknown00002.txt","true-author":"<UNK>"},`+
		`{"unknown-text":"unknown00001.txt","true-author":"candidate00007"},{"unknown-text":"unknown00003.txt","true-author":"candidate00001"}]}`), 0o644)
	_, _, err = ReadPANProblems(root, PANOptions{})
	wantErr(t, err, "ground-truth.json", `"candidate00007" is not a candidate`)
}
