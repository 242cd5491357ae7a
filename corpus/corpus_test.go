package corpus

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeTree creates files (path → content) under a new temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func wantErr(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not mention %q", err, f)
		}
	}
}

func TestReadJSONL(t *testing.T) {
	root := writeTree(t, map[string]string{"c.jsonl": `{"id":"a1","author":"ann","topic":"sport","text":"Goal!","year":1999,"src":"web"}` + "\n\n" +
		`{"author":"bob","text":"Hello"}` + "\n"})
	docs, skipped, err := ReadJSONL(filepath.Join(root, "c.jsonl"), JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Document{
		{ID: "a1", Author: "ann", Topic: "sport", Text: "Goal!", Meta: map[string]string{"year": "1999", "src": "web"}},
		{ID: "c.jsonl:3", Author: "bob", Text: "Hello"},
	}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("got %+v, want %+v", docs, want)
	}
	if skipped["blank line"] != 1 || skipped.Total() != 1 {
		t.Errorf("skipped = %v, want one blank line", skipped)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	for content, fragments := range map[string][]string{
		`{"author":"a","text":"x"` + "\n":                                                  {"c.jsonl:1", "invalid JSON"},
		`{"author":"a","text":"x"}` + "\n" + `{"text":"y"}`:                                {"c.jsonl:2", `"author" is missing or empty`},
		`{"author":"a","text":"  "}`:                                                       {"c.jsonl:1", `"text" is missing or empty`},
		`{"author":"a","text":7}`:                                                          {"c.jsonl:1", `field "text" is 7, want a string`},
		"{\"author\":\"a\",\"text\":\"\xff\"}":                                             {"c.jsonl:1", "not valid UTF-8"},
		`{"id":"x","author":"a","text":"t"}` + "\n" + `{"id":"x","author":"b","text":"u"}`: {"c.jsonl:2", `id "x" already used on line 1`},
	} {
		root := writeTree(t, map[string]string{"c.jsonl": content})
		_, _, err := ReadJSONL(filepath.Join(root, "c.jsonl"), JSONLOptions{})
		wantErr(t, err, fragments...)
	}
}

func TestReadDir(t *testing.T) {
	root := writeTree(t, map[string]string{
		"sport/bob/2.txt": "b2", "sport/ann/1.txt": "a1", "art/ann/x.txt": "ax",
		"sport/ann/notes.md": "skip", "README.txt": "skip",
	})
	docs, skipped, err := ReadDir(root, DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.ID+"="+d.Topic+"|"+d.Author+"|"+d.Text)
	}
	want := []string{"art/ann/x.txt=art|ann|ax", "sport/ann/1.txt=sport|ann|a1", "sport/bob/2.txt=sport|bob|b2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if skipped.Total() != 2 || skipped["file without .txt extension"] != 1 {
		t.Errorf("skipped = %v", skipped)
	}
	_, _, err = ReadDir(writeTree(t, map[string]string{"t/a/bad.txt": "\xfe\xff"}), DirOptions{})
	wantErr(t, err, "bad.txt", "not valid UTF-8")
	_, _, err = ReadDir(writeTree(t, map[string]string{"t/a/empty.txt": " \n"}), DirOptions{})
	wantErr(t, err, "empty.txt", "text is empty")
}

func TestReadSOTU(t *testing.T) {
	address := func(year, name, party string) string {
		return `{"year":` + year + `,"name":"` + name + `","party":"` + party + `","text":"Fellow citizens ` + year + `"}`
	}
	root := writeTree(t, map[string]string{
		"1790_george_washington_n.json":    address("1790", "George Washington", "none"),
		"1790_george_washington_n.txt":     "twin",
		"1862_abraham_lincoln_r.json":      address("1862", "Abraham Lincoln", "Republican"),
		"1934_franklin_d_roosevelt_d.json": address("1934", "Franklin D. Roosevelt", "Democratic"),
	})
	docs, skipped, err := ReadSOTU(root, DefaultSOTUOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Author != "Abraham Lincoln" || docs[0].Topic != "republican" ||
		docs[1].Topic != "democratic" || docs[1].Meta["year"] != "1934" || docs[0].ID != "1862_abraham_lincoln_r" {
		t.Errorf("party topics: got %+v", docs)
	}
	if skipped.Total() != 2 || skipped[`party "none" (topic = "party" keeps Democratic and Republican)`] != 1 {
		t.Errorf("skipped = %v", skipped)
	}
	docs, _, err = ReadSOTU(root, SOTUOptions{Topic: SOTUTopicEra, EraSplitYear: 1862})
	if err != nil {
		t.Fatal(err)
	}
	var topics []string
	for _, d := range docs {
		topics = append(topics, d.Topic)
	}
	if want := []string{"before-1862", "from-1862", "from-1862"}; !reflect.DeepEqual(topics, want) {
		t.Errorf("era topics = %v, want %v", topics, want)
	}
	_, _, err = ReadSOTU(root, SOTUOptions{Topic: "century"})
	wantErr(t, err, `topic = "century": want "party" or "era"`)
	_, _, err = ReadSOTU(root, SOTUOptions{Topic: SOTUTopicEra})
	wantErr(t, err, "era_split_year = 0")
	bad := writeTree(t, map[string]string{"1801_x_y_r.json": address("1802", "X", "Republican")})
	_, _, err = ReadSOTU(bad, DefaultSOTUOptions())
	wantErr(t, err, "1801_x_y_r.json", "year 1802 does not match the file name")
}
