package runreport

import (
	"path/filepath"
	"strings"
	"testing"

	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

// The table caption describes the snippets the protocol took.
func TestProtocolNoteNamesSnippetsPerAuthor(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	src := strings.Replace(fixtures.Experiment(corpusPath, vecPath), "[protocol]\n", "[protocol]\nsnippets_per_author = 3\n", 1)
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "s.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	if note := protocolNote(cfg); !strings.Contains(note, "3 disjoint snippets of 100 words per author") {
		t.Errorf("protocol note %q does not name the snippets", note)
	}
}

// The committed SynTF config runs the classification protocol, and its caption says so: no
// known texts, snippets or static attackers of the authorship protocol.
func TestSynTFConfigIsCaptionedWithItsProtocol(t *testing.T) {
	cfg, err := runconfig.LoadConfig(filepath.Join("..", "..", "configs", "syntf.toml"))
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(caption(cfg, RunFacts{}, "r").Notes, "\n")
	for _, want := range []string{"Protocol: classification (SynTF)", "1000-word chunks", "40 % of each suspect's held out", "trains and tests on the privatised documents"} {
		if !strings.Contains(notes, want) {
			t.Errorf("caption lacks %q:\n%s", want, notes)
		}
	}
	for _, bad := range []string{"known text =", "snippet =", "attackers trained on the original known texts"} {
		if strings.Contains(notes, bad) {
			t.Errorf("caption of a classification run says %q:\n%s", bad, notes)
		}
	}
}

// TestRelativeToOrderedNone: with a bag presentation of the original beside it, relative scores
// are taken against the original in order (the first "none" whose order is not "bag").
func TestRelativeToOrderedNone(t *testing.T) {
	cfg, err := runconfig.ParseConfig("x.toml", "name = \"x\"\n[[sets]]\nname = \"s\"\nauthors = 2\n[[scorers]]\nname = \"sr-nn\"\n"+
		"[[mechanisms]]\nname = \"none\"\nlabel = \"none-bag\"\n[mechanisms.params]\norder = \"bag\"\n[[mechanisms]]\nname = \"none\"\n")
	if err != nil {
		t.Fatal(err)
	}
	rows := []report.Row{
		{Set: "s", Mechanism: "none-bag", Scorer: "a", Metric: "accuracy", Value: 0.2},
		{Set: "s", Mechanism: "none", Scorer: "a", Metric: "accuracy", Value: 0.4},
	}
	found := false
	for _, r := range DerivedRows(cfg, rows) {
		if r.Mechanism == "none-bag" && r.Metric == "relative_accuracy" {
			found = true
			if r.Value != 0.5 {
				t.Errorf("none-bag relative accuracy %v, want 0.2/0.4", r.Value)
			}
		}
	}
	if !found {
		t.Error("no relative_accuracy row for none-bag")
	}
}
