package experiments

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dptext/registry"
)

func TestConfigCorporaKeys(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"author":"a","text":"x","topic":"t"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "name = \"x\"\n[corpus]\nformat = \"jsonl\"\npath = \"c.jsonl\"\n[protocol]\n%PROTO%\n[[sets]]\nname = \"20\"\nauthors = 20\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	for proto, want := range map[string]string{
		"topics = 1":              "c.toml:6: protocol.topics: 1: want a number of topics from 2",
		"topics = [\"a\"]":        "protocol.topics: 1 name(s): want at least 2",
		"topics = [\"a\", \"a\"]": `protocol.topics: "a" appears twice`,
		"topics = [\"a\", 3]":     "protocol.topics: entry 2 is 3",
		"topics = 2.5":            "protocol.topics: 2.5: want a number",
		"resample = \"stories\"":  `c.toml:6: protocol.resample: "stories": want "none", "snippets"`,
		"kind = \"classification\"\nresample = \"authors\"": "applies to the authorship protocol",
	} {
		src := strings.Replace(base, "%PROTO%", proto, 1)
		_, err := ParseConfig(filepath.Join(dir, "c.toml"), src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", proto, err, want)
		}
	}
	cfg, err := ParseConfig(filepath.Join(dir, "c.toml"), strings.Replace(base, "%PROTO%", "topics = [\"sea\", \"land\"]\nresample = \"authors\"", 1))
	if err != nil || cfg.Protocol.Topics.Count != 0 || len(cfg.Protocol.Topics.Names) != 2 || cfg.Protocol.Resample != ResampleAuthors {
		t.Errorf("valid topics list: %v %+v", err, cfg)
	}
	cfg, err = ParseConfig(filepath.Join(dir, "c.toml"), strings.Replace(base, "%PROTO%", "", 1))
	if err != nil || cfg.Protocol.Topics.Count != 2 || cfg.Protocol.Resample != ResampleNone {
		t.Errorf("defaults: %v %+v", err, cfg.Protocol)
	}
	_, err = ParseConfig(filepath.Join(dir, "c.toml"), strings.Replace(strings.Replace(base, "%PROTO%", "", 1), "path = \"c.jsonl\"", "path = \"c.jsonl\"\nlanguage = \"en\"", 1))
	if err == nil || !strings.Contains(err.Error(), `corpus.language: applies to format "pan" only`) {
		t.Errorf("language on jsonl: %v", err)
	}
	for ref, want := range map[string]string{
		"set = \"50\"\nauthors = 50\nlabel = \"sr-nn\"\nvalues = { none = 1 }":                      `report.references[0].set: "50" is not a set of this config; sets: 20`,
		"set = \"20\"\nauthors = 20\nlabel = \"sr-nn\"\nmechanism = \"emd\"\nvalues = { none = 1 }": `report.references[0].mechanism: "emd" is not a mechanism`,
	} {
		src := strings.Replace(base, "%PROTO%", "", 1) + "[[report.references]]\n" + ref + "\n"
		_, err := ParseConfig(filepath.Join(dir, "c.toml"), src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("reference %q: got %v, want %q", ref, err, want)
		}
	}
}

// Captions come from the data read and the config: the corpus named by its path (no State of the Union for
// other corpora), the protocol of its kind, and what each interval covers.
func TestCaptionFollowsTheConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"author":"a","text":"x","topic":"t"}`), 0o644)
	base := "name = \"x\"\nrepeats = 4\n[corpus]\nformat = \"jsonl\"\npath = \"c.jsonl\"\n[protocol]\n%PROTO%\n[[sets]]\nname = \"20\"\nauthors = 20\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	text := func(proto string) string {
		cfg, err := ParseConfig(filepath.Join(dir, "c.toml"), strings.Replace(base, "%PROTO%", proto, 1))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := registry.LookupCorpusFormat(cfg.Corpus.Format)
		docs, skipped, err := f.Read(cfg.Corpus, cfg.resolve(cfg.Corpus.Path), true)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(caption(cfg, runFacts{corpus: describeCorpus(cfg.Corpus, f, docs, skipped)}, "r").Notes, "\n")
	}
	c := text("resample = \"authors\"")
	for _, want := range []string{`Corpus: JSON Lines corpus "c.jsonl", 1 document by 1 author over 1 topic.`, "the draw of the evaluation authors", "95 % Student t over 4 repeats", "balanced over the 2 topics with the most eligible authors"} {
		if !strings.Contains(c, want) {
			t.Errorf("caption lacks %q:\n%s", want, c)
		}
	}
	if strings.Contains(c, "State of the Union") {
		t.Errorf("caption of a JSONL corpus names the State of the Union:\n%s", c)
	}
	if c := text(""); !strings.Contains(c, "covering only the randomness of mechanisms and scorers") {
		t.Errorf("resample none caption:\n%s", c)
	}
	if c := text("kind = \"classification\""); !strings.Contains(c, "Protocol: classification (SynTF)") || strings.Contains(c, "snippet =") {
		t.Errorf("classification caption:\n%s", c)
	}
}

// Table 1's config with only [corpus] changed to a PAN collection is captioned with the
// collection read — its name, language and counts, and the writers merged — and says nothing
// of the State of the Union, which only the replaced [corpus] named.
func TestCaptionDescribesTheCorpusRead(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "configs", "table1.toml"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(text)
	start, end := strings.Index(src, "[corpus]"), strings.Index(src, "[embeddings]")
	pan, err := filepath.Abs(filepath.Join("..", "corpus", "testdata", "pan19-reuse"))
	if err != nil {
		t.Fatal(err)
	}
	src = src[:start] + "[corpus]\nformat = \"pan\"\npath = " + strconv.Quote(pan) + "\n\n" + src[end:]
	cfg, err := ParseConfig(filepath.Join(t.TempDir(), "table1.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := registry.LookupCorpusFormat(cfg.Corpus.Format)
	docs, skipped, err := f.Read(cfg.Corpus, pan, true)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(caption(cfg, runFacts{corpus: describeCorpus(cfg.Corpus, f, docs, skipped)}, "r").Notes, "\n")
	want := `Corpus: PAN collection "pan19-reuse" (language en), 35 documents over 8 topics: 34 by 7 authors and 1 by an unknown writer (open-set); 2 authors merged with another author that shares a byte-identical text; 3 open-set texts byte-identical to a named author's.`
	if !strings.Contains(notes, want) {
		t.Errorf("caption lacks %q:\n%s", want, notes)
	}
	if strings.Contains(notes, "State of the Union") || strings.Contains(notes, "era") {
		t.Errorf("caption of a PAN run names the State of the Union:\n%s", notes)
	}
}
