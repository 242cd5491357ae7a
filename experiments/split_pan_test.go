package experiments

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dptext/corpus"
	"dptext/internal/fixtures"
	"dptext/report"
	"dptext/runconfig"
	"dptext/text"
)

// panFixture is corpus/testdata/pan19-reuse (see its README) as an absolute path.
func panFixture(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "corpus", "testdata", "pan19-reuse"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// panVectors writes 8-d vectors for every normalised word of the PAN fixture.
func panVectors(t *testing.T, dir string) string {
	t.Helper()
	docs, _, err := corpus.ReadPAN(panFixture(t), corpus.PANOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	path := filepath.Join(dir, "vectors.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, d := range docs {
		for _, word := range text.Normalize(text.Words(d.Text)) {
			if seen[word] {
				continue
			}
			seen[word] = true
			fmt.Fprint(w, word)
			for k := 0; k < 8; k++ {
				fmt.Fprintf(w, " %d", (len(seen)*(k+3))%7-3)
			}
			fmt.Fprintln(w)
		}
	}
	w.Flush()
	f.Close()
	return path
}

func panConfig(t *testing.T, extra string) *runconfig.Config {
	t.Helper()
	dir := t.TempDir()
	src := fmt.Sprintf(`name = "pan"
seed = 3
repeats = 2
[corpus]
format = "pan"
path = %q
[embeddings]
format = "text"
path = %q
vocabulary = "all"
[protocol]
kind = "pan"
known_words = 300
unknown_words = 200
[[sets]]
name = "problem00001"
[[sets]]
name = "problem00002"
authors = 3
[[mechanisms]]
name = "none"
[[scorers]]
name = "koppel11"
[report]
metric = "accuracy"
[[report.columns]]
scorer = "koppel11"
label = "DRauth"
task = "author"
`, panFixture(t), panVectors(t, dir)) + extra
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "pan.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The pan protocol takes each problem's own texts: problem00002's candidates are W6, W1 (under
// the name of its first appearance, problem00001/candidate00001, whose known texts there are
// byte-identical to these and were dropped as duplicates by the reader: put back here) and W4;
// its unknown texts keep their true authors, and W7's open-set text — W7 is a candidate only in
// problem00003 — is open-set here. Mutant: reading the flattened corpus without the duplicates
// (before issue 25) leaves W1 without known texts in problem00002 (2 candidates, 6 known texts).
func TestSplitPANUsesEachProblemsOwnTexts(t *testing.T) {
	cfg := panConfig(t, "")
	docs, _, err := corpus.ReadPAN(panFixture(t), corpus.PANOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sets, err := Split(cfg, docs, func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) })
	if err != nil {
		t.Fatal(err)
	}
	s := sets[1]
	wantAuthors := []string{"problem00002/candidate00001", "problem00001/candidate00001", "problem00002/candidate00003"}
	if !sameSet(s.Authors, wantAuthors) || len(s.Known) != 9 {
		t.Errorf("problem00002: candidates %v with %d known texts, want %v with 9", s.Authors, len(s.Known), wantAuthors)
	}
	wantTruth := []string{"problem00002/candidate00001", "problem00001/candidate00001", "problem00002/candidate00003", corpus.UnknownAuthor, "problem00002/candidate00001"}
	if !slices.Equal(s.EvalAuthors, wantTruth) {
		t.Errorf("problem00002 truths %v, want %v", s.EvalAuthors, wantTruth)
	}
	for i, id := range s.EvalIDs {
		if !strings.HasPrefix(id, "problem00002/unknown/") {
			t.Errorf("evaluation text %d is %s, not one of problem00002's unknown texts", i, id)
		}
	}
	for _, d := range append(slices.Clone(s.Known), s.Eval...) {
		if len(d) != s.N {
			t.Fatalf("a text of %d words, N = %d", len(d), s.N)
		}
	}
	// problem00001: u5 (W5) is a candidate's only in problem00003: open-set here, as is u4 (W4).
	if got := sets[0].EvalAuthors; got[3] != corpus.UnknownAuthor || got[4] != corpus.UnknownAuthor || got[0] != "problem00001/candidate00001" {
		t.Errorf("problem00001 truths %v", got)
	}
	if !strings.Contains(log.String(), "set problem00002: PAN problem with 3 candidates, 9 known and 5 unknown texts (1 open-set)") {
		t.Errorf("log:\n%s", log.String())
	}
	bad := panConfig(t, "")
	bad.Sets[0].Name = "problem00009"
	if _, err := Split(bad, docs, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "problems: problem00001, problem00002, problem00003") {
		t.Errorf("unknown problem: %v", err)
	}
	bad = panConfig(t, "")
	bad.Sets[1].Authors = 4
	if _, err := Split(bad, docs, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "has 3 candidates") {
		t.Errorf("wrong candidate count: %v", err)
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// A whole run of the pan protocol: per problem, the attacker names the writers of the
// candidates' unknown texts and is wrong on the open-set ones (problem00001: 4 of 6 unknown
// texts have a candidate as writer, so accuracy ≤ 4/6), PAN's open-set macro-F1 is written,
// and the caption says which protocol ran.
func TestRunPANProtocol(t *testing.T) {
	cfg := panConfig(t, "")
	dir := t.TempDir()
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 2, context.Background(), &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rows, err := report.ReadRowsFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var acc, f1 []float64
	for _, r := range rows {
		if r.Set == "problem00001" && r.Scorer == "koppel11" {
			switch r.Metric {
			case report.MetricAccuracy:
				acc = append(acc, r.Value)
			case report.MetricOpenSetMacroF1:
				f1 = append(f1, r.Value)
			}
		}
	}
	if len(acc) != 2 || len(f1) != 2 {
		t.Fatalf("accuracy %v and open-set macro-F1 %v of problem00001: want one per repeat", acc, f1)
	}
	for _, a := range acc {
		if a > 4.0/6+1e-9 {
			t.Errorf("accuracy %v on problem00001: above 4/6, but 2 of its 6 unknown texts are open-set", a)
		}
	}
	md := readFile(t, filepath.Join(dir, "table.md"))
	if !strings.Contains(md, "Protocol: PAN cross-domain attribution, one set per problem") {
		t.Errorf("caption does not name the pan protocol:\n%s", md)
	}
}

// The pan protocol's config errors name the key: another corpus format, resampling, and a
// topic classifier (the unknown texts of a problem share one topic).
func TestPANProtocolConfigErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := "name = \"x\"\n[corpus]\nformat = %s\npath = \"c\"\n[protocol]\nkind = \"pan\"\n%s\n[[sets]]\nname = \"problem00001\"\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = %s\n"
	for _, c := range []struct{ format, proto, scorer, want string }{
		{`"jsonl"`, "", `"koppel11"`, `want [corpus] format = "pan"`},
		{`"pan"`, `resample = "authors"`, `"koppel11"`, `the pan protocol's texts are fixed by each problem`},
		{`"pan"`, "", `"fasttext"`, `there is no topic to classify`},
	} {
		_, err := runconfig.ParseConfig(filepath.Join(dir, "c.toml"), fmt.Sprintf(base, c.format, c.proto, c.scorer))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s/%s/%s: %v, want %q", c.format, c.proto, c.scorer, err, c.want)
		}
	}
}

// With resample = "authors" and a set that takes every eligible author, every repeat has the
// same authors: the log and the caption say that the intervals do not cover a draw of authors
// (the caption used to claim they did). A set smaller than the pool gets no such note; the log
// gives the mean N over the draws, as the caption does. "1 story" is singular.
func TestWholePoolSetsAreNamed(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 3, 2, 400)
	// One writer per topic too short to be eligible: the topics' training data, so that a set
	// may take all 6 eligible authors.
	f, err := os.OpenFile(corpusPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	short := strings.Repeat("seaaaa ", 60)
	fmt.Fprintf(f, "{\"author\":\"short-sea\",\"topic\":\"sea\",\"text\":%q}\n{\"author\":\"short-land\",\"topic\":\"land\",\"text\":%q}\n",
		short, strings.ReplaceAll(short, "sea", "land"))
	f.Close()
	src := "name = \"w\"\nseed = 1\nrepeats = 3\n" + strings.Replace(fixtures.Inputs(corpusPath, vecPath), "topic_train_words = 100", "topic_train_words = 50", 1) + "resample = \"authors\"\n" +
		"[[sets]]\nname = \"6\"\nauthors = 6\n[[sets]]\nname = \"2\"\nauthors = 2\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	cfg, err := runconfig.ParseConfig(filepath.Join(t.TempDir(), "w.toml"), src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 1, context.Background(), &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	man, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	// 3 eligible authors per topic: 6 is the whole pool, 2 is drawn.
	if !slices.Equal(man.WholePoolSets, []string{"6"}) {
		t.Errorf("whole-pool sets %v, want [6]", man.WholePoolSets)
	}
	md := readFile(t, filepath.Join(dir, "table.md"))
	if !strings.Contains(md, "Except set(s) 6, which take every eligible author") || !strings.Contains(md, "1 story per author") {
		t.Errorf("caption:\n%s", md)
	}
	if !strings.Contains(log.String(), "every repeat draws the same authors") {
		t.Errorf("log:\n%s", log.String())
	}
}
