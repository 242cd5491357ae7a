// Package runreport writes and checks the reports of a run from its folder: the derived rows
// (relative to the baseline, gains), the tables and plots with their captions, `dptext report`
// (Rereport), the comparison with a baseline run (CompareRuns) and the baseline copy.
package runreport

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/report/compare"
	"dptext/experiments/report/render"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/internal/filehash"
)

// RunFacts are what a run learnt from its data that the caption states and results.csv does
// not hold; they are kept in the manifest so that `dptext report` needs nothing else.
type RunFacts struct {
	// Corpus describes the corpus read (nil for a run recorded before the manifest held it:
	// the config's [corpus] is named instead).
	Corpus *rundir.CorpusRead
	// WholePool names the sets whose authors were the same in every draw (Manifest.WholePoolSets).
	WholePool []string
}

// WriteReport writes table.md, table.csv, table.tex, summary.csv and the plots of a run from
// its rows, with a caption naming the config, the corpus read and the embeddings, and returns
// the names of the files written.
func WriteReport(dir string, cfg *runconfig.Config, facts RunFacts, rows []report.Row) ([]string, error) {
	return render.Write(dir, rows, layoutOf(cfg), caption(cfg, facts, filepath.Base(dir)))
}

func caption(cfg *runconfig.Config, facts RunFacts, runID string) render.Caption {
	read := facts.Corpus
	corpus := "Corpus: " + cfg.Corpus.Format
	if f, ok := registry.LookupCorpusFormat(cfg.Corpus.Format); ok {
		corpus = "Corpus (as the config's [corpus] names it; this run's manifest does not describe the corpus read): " + f.Caption(cfg.Corpus) + "."
	}
	if read != nil {
		corpus = read.Sentence()
	}
	emb := "GloVe 6B 100-d (wink)"
	if cfg.Embeddings.Path != "" {
		emb = cfg.Embeddings.Format + " " + cfg.Embeddings.Path
	}
	if cfg.Embeddings.TopK > 0 {
		emb += fmt.Sprintf(", top %d words", cfg.Embeddings.TopK)
	}
	notes := []string{corpus, "Embeddings: " + emb + ".", protocolNote(cfg), intervalNote(cfg, facts.WholePool)}
	var adaptive []string
	for _, s := range cfg.Scorers {
		if cfg.Adaptive(s) {
			adaptive = append(adaptive, s.ID()+" adaptive")
		}
	}
	switch {
	case cfg.Protocol.Kind == runconfig.ProtocolClassification:
		notes = append(notes, "Attack protocol: every scorer trains and tests on the privatised documents unless stated static.")
	case len(adaptive) > 0:
		notes = append(notes, "Attack protocol: static unless stated ("+strings.Join(adaptive, ", ")+").")
	default:
		notes = append(notes, "Attack protocol: static (attackers trained on the original known texts).")
	}
	if cfg.Description != "" {
		// The description is the config author's words about the config; it follows the
		// sentence built from the data, so that it is not read as the corpus's description.
		notes = append(notes[:1:1], append([]string{"Config " + strconv.Quote(cfg.Name) + ": " + strings.TrimSpace(cfg.Description)}, notes[1:]...)...)
	}
	return render.Caption{Title: cfg.Name + " — run " + runID, Notes: notes}
}

// protocolNote describes the evaluation protocol of cfg in one sentence.
func protocolNote(cfg *runconfig.Config) string {
	p := cfg.Protocol
	if p.Kind == runconfig.ProtocolPAN {
		return fmt.Sprintf("Protocol: PAN cross-domain attribution, one set per problem: the attackers train on the problem's candidates' known texts (their first %d words; fandoms other than the unknown texts'), the mechanisms privatise its unknown texts (their first %d words), all normalised and cut to the common length N (row as-written: the same stretches as written, scored only on the original texts); open-set texts (writer none of the candidates) stay among the unknown texts and count as wrong for an attacker that always names a candidate, as PAN scores them; open_set_macro_f1 is PAN 2019's measure per problem, rounded to 3 decimals as PAN's evaluator reports it before averaging over problems; %s, seed %d.",
			p.KnownWords, p.UnknownWords, repeatsPhrase(cfg.Repeats), cfg.Seed)
	}
	if p.Kind == runconfig.ProtocolClassification {
		chunks := "whole documents"
		if p.ChunkWords > 0 {
			chunks = fmt.Sprintf("%d-word chunks", p.ChunkWords)
		}
		return fmt.Sprintf("Protocol: classification (SynTF): the suspects are each set's most prolific authors active in at least %s; %s, %.0f %% of each suspect's held out for testing; %s, seed %d.",
			runconfig.Plural(p.MinTopicsPerAuthor, "topic"), chunks, 100*p.TestShare, repeatsPhrase(cfg.Repeats), cfg.Seed)
	}
	topics := fmt.Sprintf("the %d topics with the most eligible authors", p.Topics.Count)
	if len(p.Topics.Names) > 0 {
		topics = "the topics " + strings.Join(p.Topics.Names, ", ")
	}
	if p.SnippetsPerAuthor > 0 {
		return fmt.Sprintf("Protocol: authors balanced over %s, %s per author; known text = its first %d words; %d disjoint snippets of %d words per author (the last window of each of the author's stories first, then earlier windows, never overlapping a known text), normalised and truncated to the common length N; topic classifiers trained on other authors' texts; %s, seed %d.",
			topics, runconfig.Plural(p.StoriesPerAuthor, "story"), p.KnownWords, p.SnippetsPerAuthor, p.UnknownWords, repeatsPhrase(cfg.Repeats), cfg.Seed)
	}
	return fmt.Sprintf("Protocol: authors balanced over %s, %s per author; known text = its first %d words, snippet = its last %d words, normalised and truncated to the common length N; topic classifiers trained on other authors' texts; %s, seed %d.",
		topics, runconfig.Plural(p.StoriesPerAuthor, "story"), p.KnownWords, p.UnknownWords, repeatsPhrase(cfg.Repeats), cfg.Seed)
}

// repeatsPhrase is "1 repeat" or "N repeats".
func repeatsPhrase(n int) string {
	if n == 1 {
		return "1 repeat"
	}
	return fmt.Sprintf("%d repeats", n)
}

// intervalNote says which sources of variation the intervals cover; wholePool names the sets
// whose authors were the same in every draw.
func intervalNote(cfg *runconfig.Config, wholePool []string) string {
	if cfg.Repeats < 2 {
		return "Intervals: one repeat, so no interval; the numbers are one draw."
	}
	kind := "Student t"
	if cfg.Report.Interval == "wilson" {
		kind = "Wilson score (pooled over repeats)"
	}
	var covers string
	switch cfg.Protocol.Resample {
	case runconfig.ResampleAuthors:
		covers = "the draw of the evaluation authors from the eligible pool, of each author's story and snippet, and the randomness of mechanisms and scorers"
	case runconfig.ResampleSnippets:
		covers = "the draw of each author's story and snippet and the randomness of mechanisms and scorers; the evaluation authors are fixed"
	default:
		covers = "only the randomness of mechanisms and scorers; the authors, stories and snippets are one fixed draw (resample = \"none\")"
	}
	note := fmt.Sprintf("Intervals: %.0f %% %s over %d repeats, covering %s.", 100*cfg.Report.Level, kind, cfg.Repeats, covers)
	if len(wholePool) > 0 && cfg.Protocol.Resample == runconfig.ResampleAuthors {
		note += fmt.Sprintf(" Except set(s) %s, which take every eligible author: their authors are the same in every repeat, and their intervals do not cover a draw of authors.",
			strings.Join(wholePool, ", "))
	}
	return note
}

// Rereport rewrites a run directory's tables, plots and report.html from its results.csv and the config
// text saved in its manifest, holding the directory's lock meanwhile. It needs nothing outside
// the folder: the corpus and embeddings the config names are not looked up.
func Rereport(dir string) error {
	if err := render.CheckTempDir(); err != nil {
		return err
	}
	man, err := rundir.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("%s: not a run directory: %w", dir, err)
	}
	unlock, err := rundir.LockRunDir(dir, func(string, ...any) {})
	if err != nil {
		return err
	}
	defer unlock()
	if man.Status != rundir.StatusComplete {
		return fmt.Errorf("%s: the run is not complete: %s", dir, man.StatusLine())
	}
	cfg, err := runconfig.ParseSavedConfig(man.ConfigPath, man.Config)
	if err != nil {
		return fmt.Errorf("%s: the config saved in manifest.json: %w", dir, err)
	}
	rows, err := report.ReadRowsFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		return err
	}
	written, err := WriteReport(dir, cfg, RunFacts{Corpus: man.Corpus, WholePool: man.WholePoolSets}, rows)
	if err != nil {
		return err
	}
	// The plots and report.html written are dptext's: the manifest lists them, so that the
	// next run removes them (and nothing else of their kind).
	man.Outputs = mergeOutputs(man.Outputs, append(written, HTMLFile))
	if err := WriteHTML(dir, cfg, RunFacts{Corpus: man.Corpus, WholePool: man.WholePoolSets}, man, rows, man.Outputs); err != nil {
		return err
	}
	return man.Write(dir)
}

// mergeOutputs returns the sorted union of two lists of a run's output files.
func mergeOutputs(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// CompareRuns runs the regression check of a run against a baseline (both folders holding a
// results.csv). It returns whether anything moved and a printable verdict.
func CompareRuns(baselineDir, runDir string, alpha float64) (bool, string, error) {
	for _, d := range []string{baselineDir, runDir} {
		if err := CheckComplete(d); err != nil {
			return false, "", err
		}
	}
	base, err := report.ReadRowsFile(filepath.Join(baselineDir, "results.csv"))
	if err != nil {
		return false, "", err
	}
	run, err := report.ReadRowsFile(filepath.Join(runDir, "results.csv"))
	if err != nil {
		return false, "", err
	}
	opts := compare.DefaultOptions()
	opts.Alpha = alpha
	v, err := compare.Runs(base, run, opts)
	if err != nil {
		return false, "", err
	}
	return !v.OK(), v.String(), nil
}

// CheckComplete fails when dir has a manifest that does not say complete (a folder with a
// results.csv and no manifest, such as a hand-made baseline, passes).
func CheckComplete(dir string) error {
	man, err := rundir.ReadManifest(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: unreadable manifest.json: %w", dir, err)
	}
	if man.Status != rundir.StatusComplete {
		return fmt.Errorf("%s: the run is not complete: %s", dir, man.StatusLine())
	}
	return nil
}

// CopyBaseline copies a finished run's results.csv, tables and manifest into dst, replacing
// what was there.
func CopyBaseline(runDir, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"results.csv", "table.md", "table.csv", "manifest.json"} {
		data, err := filehash.ReadRegular(filepath.Join(runDir, f), filehash.MaxStateBytes, "a run's output")
		if err != nil {
			return err
		}
		if err := rundir.WriteFileAtomic(filepath.Join(dst, f), data); err != nil {
			return err
		}
	}
	return nil
}
