package lemma

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeDictionary writes a tiny WordNet directory: index files list lemmas (first field), with
// a license-style header line starting with a space; exception files map forms to bases.
func writeDictionary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"index.noun": "  1 this line is a header\ndog n 1\ngoose n 1\ncity n 1\nbox n 1\nwoman n 1\nleaf n 1\nrunning n 1\nlead n 1\n",
		"index.verb": "run v 1\nhope v 1\nleave v 1\nstop v 1\nlead v 1\nfly v 1\n",
		"index.adj":  "big a 1\ngood a 1\nlarge a 1\n",
		"index.adv":  "well r 1\n",
		"noun.exc":   "geese goose\nwomen woman\n",
		"verb.exc":   "ran run\nled lead\n",
		"adj.exc":    "better good well\n",
		"adv.exc":    "",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLemma(t *testing.T) {
	l, err := Load(writeDictionary(t))
	if err != nil {
		t.Fatal(err)
	}
	for form, want := range map[string]string{
		"dogs":    "dog",     // noun: -s
		"geese":   "goose",   // noun exception
		"cities":  "city",    // noun: -ies → -y
		"boxes":   "box",     // noun: -xes → -x
		"women":   "woman",   // noun exception
		"leaves":  "leave",   // no noun rule gives "leaf" (only the exception list could); verb -es → -e
		"running": "running", // a noun lemma itself: nouns are tried first
		"ran":     "run",     // verb exception
		"hoped":   "hope",    // verb: -ed → -e
		"flies":   "fly",     // verb: -ies → -y
		"larger":  "large",   // adjective: -er → -e
		"better":  "good",    // adjective exception, shortest base first
		"Dogs":    "dog",     // lookups are lowercase; a changed lemma is lowercase
		"Dog":     "Dog",     // its own lemma: case kept
		"zyzzyva": "zyzzyva", // unknown: unchanged
		"led":     "lead",
	} {
		if got := l.Lemma(form); got != want {
			t.Errorf("Lemma(%q) = %q, want %q", form, got, want)
		}
	}
	if got := l.Candidates("better", "adj"); !reflect.DeepEqual(got, []string{"good", "well"}) {
		t.Errorf("Candidates(better, adj) = %v", got)
	}
	if got := l.Candidates("header", "noun"); len(got) != 0 {
		t.Errorf("a header line was read as a lemma: %v", got)
	}
}

func TestLoadFailsClearly(t *testing.T) {
	if _, err := Load(""); err == nil {
		t.Fatal("empty directory accepted")
	}
	dir := writeDictionary(t)
	if err := os.Remove(filepath.Join(dir, "verb.exc")); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "verb.exc") || !strings.Contains(err.Error(), "wordnet-base") {
		t.Fatalf("error %v, want one naming verb.exc and how to install WordNet", err)
	}
}
