package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"dptext/report"
)

// WriteReport writes table.md, table.csv, table.tex, summary.csv and the plots of a run from
// its rows, with a caption naming the config, corpus and embeddings.
func WriteReport(dir string, cfg *Config, rows []report.Row) error {
	return report.Write(dir, rows, cfg.Report, caption(cfg, filepath.Base(dir)))
}

func caption(cfg *Config, runID string) report.Caption {
	corpus := cfg.Corpus.Format
	if f, ok := corpusFormat(cfg.Corpus.Format); ok {
		corpus = f.Caption(cfg.Corpus)
	}
	emb := "GloVe 6B 100-d (wink)"
	if cfg.Embeddings.Path != "" {
		emb = cfg.Embeddings.Format + " " + cfg.Embeddings.Path
	}
	if cfg.Embeddings.TopK > 0 {
		emb += fmt.Sprintf(", top %d words", cfg.Embeddings.TopK)
	}
	notes := []string{"Corpus: " + corpus + "; embeddings: " + emb + ".", protocolNote(cfg), intervalNote(cfg)}
	var adaptive []string
	for _, s := range cfg.Scorers {
		if cfg.adaptive(s) {
			adaptive = append(adaptive, s.ID()+" adaptive")
		}
	}
	switch {
	case cfg.Protocol.Kind == ProtocolClassification:
		notes = append(notes, "Attack protocol: every scorer trains and tests on the privatised documents unless stated static.")
	case len(adaptive) > 0:
		notes = append(notes, "Attack protocol: static unless stated ("+strings.Join(adaptive, ", ")+").")
	default:
		notes = append(notes, "Attack protocol: static (attackers trained on the original known texts).")
	}
	if cfg.Description != "" {
		notes = append([]string{strings.TrimSpace(cfg.Description)}, notes...)
	}
	return report.Caption{Title: cfg.Name + " — run " + runID, Notes: notes}
}

// protocolNote describes the evaluation protocol of cfg in one sentence.
func protocolNote(cfg *Config) string {
	p := cfg.Protocol
	if p.Kind == ProtocolClassification {
		chunks := "whole documents"
		if p.ChunkWords > 0 {
			chunks = fmt.Sprintf("%d-word chunks", p.ChunkWords)
		}
		return fmt.Sprintf("Protocol: classification (SynTF): the suspects are each set's most prolific authors active in at least %d topic(s); %s, %.0f %% of each suspect's held out for testing; %d repeat(s), seed %d.",
			p.MinTopicsPerAuthor, chunks, 100*p.TestShare, cfg.Repeats, cfg.Seed)
	}
	topics := fmt.Sprintf("the %d topics with the most eligible authors", p.TopicCount)
	if len(p.TopicNames) > 0 {
		topics = "the topics " + strings.Join(p.TopicNames, ", ")
	}
	if p.SnippetsPerAuthor > 0 {
		return fmt.Sprintf("Protocol: authors balanced over %s, %d story per author; known text = its first %d words; %d disjoint snippets of %d words per author (the last window of each of the author's stories first, then earlier windows, never overlapping a known text), normalised and truncated to the common length N; topic classifiers trained on other authors' texts; %d repeat(s), seed %d.",
			topics, p.StoriesPerAuthor, p.KnownWords, p.SnippetsPerAuthor, p.UnknownWords, cfg.Repeats, cfg.Seed)
	}
	return fmt.Sprintf("Protocol: authors balanced over %s, %d story per author; known text = its first %d words, snippet = its last %d words, normalised and truncated to the common length N; topic classifiers trained on other authors' texts; %d repeat(s), seed %d.",
		topics, p.StoriesPerAuthor, p.KnownWords, p.UnknownWords, cfg.Repeats, cfg.Seed)
}

// intervalNote says which sources of variation the intervals cover.
func intervalNote(cfg *Config) string {
	if cfg.Repeats < 2 {
		return "Intervals: one repeat, so no interval; the numbers are one draw."
	}
	kind := "Student t"
	if cfg.Report.Interval == "wilson" {
		kind = "Wilson score (pooled over repeats)"
	}
	var covers string
	switch cfg.Protocol.Resample {
	case ResampleAuthors:
		covers = "the draw of the evaluation authors from the eligible pool, of each author's story and snippet, and the randomness of mechanisms and scorers"
	case ResampleSnippets:
		covers = "the draw of each author's story and snippet and the randomness of mechanisms and scorers; the evaluation authors are fixed"
	default:
		covers = "only the randomness of mechanisms and scorers; the authors, stories and snippets are one fixed draw (resample = \"none\")"
	}
	return fmt.Sprintf("Intervals: %.0f %% %s over %d repeats, covering %s.", 100*cfg.Report.Level, kind, cfg.Repeats, covers)
}

// Rereport rewrites a run directory's tables and plots from its results.csv and the config
// text saved in its manifest, holding the directory's lock meanwhile. It needs nothing outside
// the folder: the corpus and embeddings the config names are not looked up.
func Rereport(dir string) error {
	man, err := ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("%s: not a run directory: %w", dir, err)
	}
	unlock, err := lockRunDir(dir, func(string, ...any) {})
	if err != nil {
		return err
	}
	defer unlock()
	if man.Status != StatusComplete {
		return fmt.Errorf("%s: the run is not complete: %s", dir, man.StatusLine())
	}
	cfg, err := parseConfig(man.ConfigPath, man.Config, false)
	if err != nil {
		return fmt.Errorf("%s: the config saved in manifest.json: %w", dir, err)
	}
	rows, err := report.ReadRowsFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		return err
	}
	return WriteReport(dir, cfg, rows)
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
	opts := report.DefaultCompareOptions()
	opts.Alpha = alpha
	v, err := report.Compare(base, run, opts)
	if err != nil {
		return false, "", err
	}
	return !v.OK(), v.String(), nil
}

// CheckComplete fails when dir has a manifest that does not say complete (a folder with a
// results.csv and no manifest, such as a hand-made baseline, passes).
func CheckComplete(dir string) error {
	man, err := ReadManifest(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: unreadable manifest.json: %w", dir, err)
	}
	if man.Status != StatusComplete {
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
		data, err := os.ReadFile(filepath.Join(runDir, f))
		if err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(dst, f), data); err != nil {
			return err
		}
	}
	return nil
}
