package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/experiments/runreport"
	"dptext/internal/fixtures"
)

// A deliberately broken mechanism under the baseline's name must make CompareRuns fail and
// name the cells that moved; the unchanged run must pass.
func TestCompareFlagsABrokenMechanism(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 6, 2, 400)
	base := fixtureConfig(t, corpusPath, vecPath)
	// 8 authors and 4 repeats: 32 predictions per cell, enough power at α = 0.01.
	src := strings.Replace(strings.Replace(base.Text, "authors = 6", "authors = 8", 1), "repeats = 2", "repeats = 4", 1)
	base, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "base.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	baseDir, sameDir, brokenDir := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{baseDir, sameDir} {
		if err := runFixture(t, base, d, 2, context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	moved, text, err := runreport.CompareRuns(baseDir, sameDir, 0.01)
	if err != nil || moved {
		t.Fatalf("an identical run moved (%v):\n%s", err, text)
	}
	// "Broken": the none row now replaces every word at random.
	src = strings.Replace(base.Text, "[[mechanisms]]\nname = \"none\"", "[[mechanisms]]\nname = \"random\"\nlabel = \"none\"", 1)
	broken, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "broken.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	if err := runFixture(t, broken, brokenDir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	moved, text, err = runreport.CompareRuns(baseDir, brokenDir, 0.01)
	if err != nil || !moved {
		t.Fatalf("the broken mechanism was not flagged (%v):\n%s", err, text)
	}
	if !strings.Contains(text, "moved") || !strings.Contains(text, "6/none//sr-knn-topic/correct") {
		t.Errorf("the verdict does not name the moved cells:\n%s", text)
	}
}

// The adaptive protocol trains the attacker on privatised known texts: its fit is per cell.
func TestAdaptiveAttackerTrainsOnPrivateTexts(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	cfg := fixtureConfig(t, corpusPath, vecPath)
	src := strings.Replace(cfg.Text, "[[scorers]]\nname = \"sr-nn\"", "[[scorers]]\nname = \"sr-nn\"\n[[scorers]]\nname = \"sr-nn\"\nlabel = \"sr-nn-adaptive\"\nprotocol = \"adaptive\"", 1)
	adaptive, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "a.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := runFixture(t, adaptive, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	res := readFile(t, filepath.Join(dir, "results.csv"))
	for _, want := range []string{"6,expmech,2,0,sr-nn-adaptive,accuracy,", "6,none,,0,sr-nn-adaptive,accuracy,"} {
		if !strings.Contains(res, want) {
			t.Errorf("no %q rows", want)
		}
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "table.md")), "Attack protocol: static unless stated (sr-nn-adaptive adaptive)") {
		t.Error("table caption does not say which attacker is adaptive")
	}
}

// The classification protocol on a corpus whose authors write on both topics ("multi"): the
// top authors are chosen by document count, every document is privatised, and the gain rows
// derive from the analyst and attacker F1.
func TestClassificationProtocolMultiTopic(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 6, 400)
	src := `name = "cls"
seed = 3
repeats = 2
[corpus]
format = "jsonl"
path = "` + corpusPath + `"
[embeddings]
format = "text"
path = "` + vecPath + `"
vocabulary = "all"
[protocol]
kind = "classification"
chunk_words = 100
min_topics_per_author = 1
test_share = 0.4
[[sets]]
name = "top8"
authors = 8
[[mechanisms]]
name = "none"
[[mechanisms]]
name = "expmech"
epsilons = [2]
[[mechanisms]]
name = "syntf"
epsilons = [5]
[mechanisms.params]
n = 20
[[scorers]]
name = "nb"
[[scorers]]
name = "char-ngram-svm"
[[gains]]
name = "gain"
utility = "nb"
attack = "char-ngram-svm"
`
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "cls.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	res := readFile(t, filepath.Join(dir, "results.csv"))
	for _, want := range []string{"top8,none,,0,nb,macro_f1,", "top8,expmech,2,1,char-ngram-svm,relative_macro_f1,",
		"top8,none,,0,nb,relative_macro_f1,1\n", "top8,expmech,2,0,gain,delta_f1,", "top8,expmech,2,0,gain,delta_relative_f1,"} {
		if !strings.Contains(res, want) {
			t.Errorf("results.csv lacks %q", want)
		}
	}
	// SynTF releases term-frequency vectors: one sparse line per private document.
	tf := readFile(t, filepath.Join(dir, "tf", strings.TrimSuffix(rundir.CellFile("set=top8/mech=syntf/eps=5/rep=0"), ".cell")+".tsv"))
	lines := strings.Split(strings.TrimSpace(tf), "\n")
	if !strings.HasPrefix(lines[0], "eval\t0\t") || !strings.Contains(tf, "known\t0\t") {
		t.Fatalf("tf file starts %q", lines[0])
	}
	total := 0
	for _, f := range strings.Fields(strings.SplitN(lines[0], "\t", 3)[2]) {
		var w string
		var n int
		if _, err := fmt.Sscanf(strings.Replace(f, ":", " ", 1), "%s %d", &w, &n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if total != 20 {
		t.Errorf("a synthetic tf vector of n = 20 words sums to %d", total)
	}
	if !strings.Contains(res, "top8,syntf,5,0,privacy,ell_n,") {
		t.Error("no ℓn privacy rows")
	}
	// Every generated author writes on one topic, so "multi" finds nobody, and says so.
	multi := strings.Replace(src, "min_topics_per_author = 1", "min_topics_per_author = 2", 1)
	cfg, err = runconfig.ParseConfig(filepath.Join(t.TempDir(), "multi.toml"), multi)
	if err != nil {
		t.Fatal(err)
	}
	err = runFixture(t, cfg, t.TempDir(), 1, context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "in at least 2 topic(s)") {
		t.Fatalf("multi on single-topic authors: %v", err)
	}
	// A multi-topic corpus: every author's odd documents move to the other topic.
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(readFile(t, corpusPath)), "\n") {
		var d map[string]string
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 { // each author's documents are consecutive lines
			d["topic"] = map[string]string{"sea": "land", "land": "sea"}[d["topic"]]
		}
		out, _ := json.Marshal(d)
		b.Write(append(out, '\n'))
	}
	multiCorpus := filepath.Join(t.TempDir(), "multi.jsonl")
	fixtures.WriteText(t, multiCorpus, b.String())
	cfg, err = runconfig.ParseConfig(filepath.Join(t.TempDir(), "multi2.toml"), strings.Replace(multi, corpusPath, multiCorpus, 1))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
		t.Fatalf("multi on a multi-topic corpus: %v", err)
	}
	if res := readFile(t, filepath.Join(dir, "results.csv")); !strings.Contains(res, "top8,expmech,2,0,gain,delta_f1,") {
		t.Error("multi run has no gain rows")
	}
}
