package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dptext/corpus"
	"dptext/experiments/report"
	"dptext/experiments/report/render"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/internal/fixtures"
)

// A whole run of the pan protocol: per problem, the attacker names the writers of the
// candidates' unknown texts and is wrong on the open-set ones (problem00001: 4 of 6 unknown
// texts have a candidate as writer, so accuracy ≤ 4/6), PAN's open-set macro-F1 is written,
// and the caption says which protocol ran.
func TestRunPANProtocol(t *testing.T) {
	cfg := panConfig(t, "")
	dir, rows := runPAN(t, cfg)
	var acc, f1, open []float64
	for _, r := range rows {
		if r.Set == "problem00001" && r.Scorer == report.SplitScorer && r.Metric == render.FactOpenSetDocs {
			open = append(open, r.Value)
		}
		if r.Set == "problem00001" && r.Scorer == "koppel11" && r.Mechanism == "none" {
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
	for _, v := range f1 {
		if v != corpus.PANRound(v) {
			t.Errorf("open-set macro-F1 %v: not rounded to 3 decimals as PAN's evaluator reports it", v)
		}
	}
	for _, a := range acc {
		if a > 4.0/6+1e-9 {
			t.Errorf("accuracy %v on problem00001: above 4/6, but 2 of its 6 unknown texts are open-set", a)
		}
	}
	// The open-set count is a set fact, and chance is the closed-set share over the candidates.
	if len(open) == 0 || slices.ContainsFunc(open, func(v float64) bool { return v != 2 }) {
		t.Errorf("open_set_docs of problem00001: %v, want 2", open)
	}
	md := readFile(t, filepath.Join(dir, "table.md"))
	if !strings.Contains(md, "set problem00001 2 of 6 open-set, best attainable accuracy 0.667") {
		t.Errorf("caption lacks problem00001's open-set count and best accuracy:\n%s", md)
	}
	// The as-written row: koppel11 scored on the texts as written, beside none, explained.
	written := 0
	for _, r := range rows {
		if r.Mechanism == render.AsWrittenMechanism {
			if r.Scorer != "koppel11" || r.Epsilon.Set() {
				t.Errorf("as-written row %+v: want koppel11's, without ε", r)
			}
			written++
		}
	}
	if written == 0 || !strings.Contains(md, "| "+render.AsWrittenMechanism+" ") || !strings.Contains(md, "the step from as-written to none is the normaliser's effect") {
		t.Errorf("%d as-written rows; table:\n%s", written, md)
	}
	if !strings.Contains(md, "Protocol: PAN cross-domain attribution, one set per problem") {
		t.Errorf("caption does not name the pan protocol:\n%s", md)
	}
}

func panConfig(t *testing.T, extra string) *runconfig.Config {
	t.Helper()
	dir := t.TempDir()
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "pan.toml"), fixtures.PANRun(t, "../..", dir)+extra)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
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
	man, err := rundir.ReadManifest(dir)
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

// pan19-baseline runs in the pan protocol: it leaves texts unattributed, and such an answer is
// "<UNK>" in predictions.csv — right on an open-set text, as PAN scores it. Mutant: scoring the
// attacker's learn.NoAnswer as is leaves "<none>" in predictions.csv and fails.
func TestRunPANBaselineRejects(t *testing.T) {
	cfg := panConfig(t, "[[scorers]]\nname = \"pan19-baseline\"\n")
	dir := t.TempDir()
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 1, context.Background(), &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	f, err := os.Open(filepath.Join(dir, "predictions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rejected, right := 0, 0
	for _, r := range records[1:] { // set, mechanism, epsilon, repeat, scorer, document, truth, prediction, …
		if r[4] != "pan19-baseline" {
			continue
		}
		if r[7] == "<none>" {
			t.Fatalf("an unattributed text kept learn.NoAnswer: %v", r)
		}
		if r[7] == corpus.UnknownAuthor {
			rejected++
			if r[6] == corpus.UnknownAuthor {
				right++
			}
		}
	}
	t.Logf("pan19-baseline: %d texts left unattributed, %d of them open-set", rejected, right)
	if rejected == 0 {
		t.Errorf("pan19-baseline never left a text unattributed")
	}
}

// `dptext run` refuses a PAN ground-truth.json naming one unknown text twice with different
// authors (the later used to win), with an error naming the file and the text, before any cell
// is computed. Mutant: corpus.readTruth without its check runs to the end and fails this test.
func TestRunRefusesTwoTruthsForOneText(t *testing.T) {
	dir := t.TempDir()
	pan := filepath.Join(dir, "pan")
	if err := os.CopyFS(pan, os.DirFS(fixtures.PANCollection(t, "../.."))); err != nil {
		t.Fatal(err)
	}
	truth := filepath.Join(pan, "problem00002", "ground-truth.json")
	data, err := os.ReadFile(truth)
	if err != nil {
		t.Fatal(err)
	}
	dup := strings.Replace(string(data), `"ground_truth": [`, `"ground_truth": [{"unknown-text": "unknown00001.txt", "true-author": "candidate00003"},`, 1)
	if err := os.WriteFile(truth, []byte(dup), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := runconfig.ParseConfig(filepath.Join(dir, "pan.toml"), fixtures.PANExperiment(pan, fixtures.PANVectors(t, fixtures.PANCollection(t, "../.."), dir)))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	err = runFixture(t, cfg, out, 1, context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), truth) || !strings.Contains(err.Error(), `"unknown00001.txt" is given two true authors`) {
		t.Fatalf("run: %v, want an error naming %s and unknown00001.txt", err, truth)
	}
	if _, err := os.Stat(filepath.Join(out, "results.csv")); err == nil {
		t.Errorf("results.csv written despite the error")
	}
}

// On a PAN set the verdict's chance is the closed-set share the tables use, not 1/authors: a
// uniform guess naming an author is wrong on every open-set text, so the levels are
// (closed-set texts / all texts) × 1/authors + above_chance, and verdict.md says so. Mutant run
// against it: the closed-set share left out (1/authors) fails the level's value.
func TestPANVerdictChanceIsClosedSet(t *testing.T) {
	cfg := panConfig(t, "\n[[mechanisms]]\nname = \"emd\"\nepsilons = [40, 10, 2]\n[[scorers]]\nname = \"chrf\"\n[verdict]\nattack = \"koppel11\"\nabove_chance = [0.05]\nutilities = [\"chrf\"]\nsearch = false\nreplicates = 200\n")
	dir, rows := runPAN(t, cfg)
	facts, counts := map[string]float64{}, map[string]float64{}
	for _, r := range rows {
		if r.Set == "problem00001" && r.Scorer == report.SplitScorer {
			facts[r.Metric] += r.Value // summed over the repeats' draws
			counts[r.Metric]++
		}
	}
	open, docs, authors := facts[render.FactOpenSetDocs], facts["eval_docs"], facts["authors"]/counts["authors"]
	if open == 0 || docs == 0 || authors == 0 {
		t.Fatalf("facts of problem00001: %v", facts)
	}
	chance := (docs - open) / docs / authors
	md := readFile(t, filepath.Join(dir, "verdict.md"))
	want := fmt.Sprintf("koppel11 ≤ %.3g (chance %.3g + 0.05)", chance+0.05, chance)
	if !strings.Contains(md, want) {
		t.Errorf("verdict.md lacks %q (closed-set share %.3f of %g authors):\n%s", want, (docs-open)/docs, authors, md)
	}
	if !strings.Contains(md, "closed-set share of the evaluation texts") {
		t.Errorf("verdict.md does not say how chance is computed on a PAN set")
	}
}

// runPAN runs cfg on two workers into a new folder and returns the folder and its results.csv rows.
func runPAN(t *testing.T, cfg *runconfig.Config) (string, []report.Row) {
	t.Helper()
	dir := t.TempDir()
	var log bytes.Buffer
	if err := runFixture(t, cfg, dir, 2, context.Background(), &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	rows, err := report.ReadRowsFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, rows
}
