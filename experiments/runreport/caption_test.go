package runreport

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dptext/experiments/registry"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
)

// Captions come from the data read and the config: the corpus named by its path (no State of the Union for
// other corpora), the protocol of its kind, and what each interval covers.
func TestCaptionFollowsTheConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"author":"a","text":"x","topic":"t"}`), 0o644)
	base := "name = \"x\"\nrepeats = 4\n[corpus]\nformat = \"jsonl\"\npath = \"c.jsonl\"\n[protocol]\n%PROTO%\n[[sets]]\nname = \"20\"\nauthors = 20\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	text := func(proto string) string {
		cfg, err := runconfig.ParseConfig(filepath.Join(dir, "c.toml"), strings.Replace(base, "%PROTO%", proto, 1))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := registry.LookupCorpusFormat(cfg.Corpus.Format)
		docs, skipped, err := f.Read(cfg.Corpus, cfg.Resolve(cfg.Corpus.Path), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(caption(cfg, RunFacts{Corpus: rundir.DescribeCorpus(cfg.Corpus, f, docs, skipped)}, "r").Notes, "\n")
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
	text, err := os.ReadFile(filepath.Join("..", "..", "configs", "table1.toml"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(text)
	start, end := strings.Index(src, "[corpus]"), strings.Index(src, "[embeddings]")
	pan, err := filepath.Abs(filepath.Join("..", "..", "corpus", "testdata", "pan19-reuse"))
	if err != nil {
		t.Fatal(err)
	}
	src = src[:start] + "[corpus]\nformat = \"pan\"\npath = " + strconv.Quote(pan) + "\n\n" + src[end:]
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "table1.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := registry.LookupCorpusFormat(cfg.Corpus.Format)
	docs, skipped, err := f.Read(cfg.Corpus, pan, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(caption(cfg, RunFacts{Corpus: rundir.DescribeCorpus(cfg.Corpus, f, docs, skipped)}, "r").Notes, "\n")
	// 5 topics: the fixture's five fandoms; each problem's target fandom is one of them, as
	// its shared texts show (corpus.ReadPAN resolves them), not a topic of its own.
	want := `Corpus: PAN collection "pan19-reuse" (language en), 35 documents over 5 topics: 34 by 7 authors and 1 by an unknown writer (open-set); 2 authors merged with another author that shares a byte-identical text; 3 open-set texts byte-identical to a named author's.`
	if !strings.Contains(notes, want) {
		t.Errorf("caption lacks %q:\n%s", want, notes)
	}
	if strings.Contains(notes, "State of the Union") || strings.Contains(notes, "era") {
		t.Errorf("caption of a PAN run names the State of the Union:\n%s", notes)
	}
}
