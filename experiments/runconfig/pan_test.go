package runconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pan config's set names are checked against the collection's metadata when the config is
// read (so by `dptext check` and before `run` reads a text), each with its real reason: a
// problem the language filter leaves out (not "not a problem of the collection"), a listed
// problem whose folder is missing, a name the collection does not list. The collection holds
// metadata only — no text — so a check that read texts would fail here instead. Mutant: without
// checkPANSets every config below is accepted and the test fails.
func TestPANSetsCheckedBeforeDataIsRead(t *testing.T) {
	dir := t.TempDir()
	pan := filepath.Join(dir, "pan")
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(pan, "collection-info.json"), `[{"problem-name": "problem00001", "language": "en"}, {"problem-name": "problem00006", "language": "fr"}, {"problem-name": "problem00007", "language": "en"}]`)
	write(filepath.Join(pan, "problem00001", "problem-info.json"), `{"unknown-folder": "unknown", "candidate-authors": []}`)
	write(filepath.Join(pan, "problem00006", "problem-info.json"), `{"unknown-folder": "unknown", "candidate-authors": []}`)
	write(filepath.Join(dir, "v.txt"), "alpha 1 0\n")
	config := func(set string) string {
		return "name = \"p\"\n[corpus]\nformat = \"pan\"\npath = \"pan\"\nlanguage = \"en\"\n[embeddings]\nformat = \"text\"\npath = \"v.txt\"\n" +
			"[protocol]\nkind = \"pan\"\n[[sets]]\nname = \"" + set + "\"\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"koppel11\"\n"
	}
	for set, want := range map[string]string{
		"problem00006": `c.toml:12: sets[0].name: problem "problem00006" is in language "fr", and [corpus] language = "en" leaves it out`,
		"problem00007": `sets[0].name: problem "problem00007" is listed by the collection, but its folder ` + filepath.Join(pan, "problem00007") + ` is missing`,
		"problem00009": `sets[0].name: "problem00009" is not a problem of the collection pan; it lists problem00001, problem00006, problem00007`,
	} {
		_, err := ParseConfig(filepath.Join(dir, "c.toml"), config(set))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("set %s: got %v, want %q", set, err, want)
		}
	}
	if _, err := ParseConfig(filepath.Join(dir, "c.toml"), config("problem00001")); err != nil {
		t.Errorf("an English problem with its folder: %v", err)
	}
	// A saved config (read on another machine) does not look the collection up.
	if _, err := ParseSavedConfig(filepath.Join(dir, "c.toml"), config("problem00009")); err != nil {
		t.Errorf("saved config: %v", err)
	}
}
