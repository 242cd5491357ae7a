package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

// TestCheckDataRefusesWhatTheRunWouldLate: every error the run raised about the config only
// after its cells were computed (the verdict's halves with too few authors, an unreachable
// above_chance level, [distinguish] pairs above the evaluation documents — the default 60
// included — or below the authors with verdict_levels, and words above the snippets' length)
// is raised by CheckData (what `dptext check` runs) at the key's line, and by Run before
// its first cell: the cells folder stays empty. Mutants: CheckData without its CheckDraws
// (every case passes CheckData), and Run without its CheckDraws (the run computes cells and
// fails late, or not at all).
func TestCheckDataRefusesWhatTheRunWouldLate(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 3, 2, 400)
	head := func(authors string) string {
		return fmt.Sprintf("name = \"late\"\nseed = 3\n%s[[sets]]\nname = \"s\"\n%s\n[[mechanisms]]\nname = \"none\"\n[[mechanisms]]\nname = \"random\"\n[[scorers]]\nname = \"sr-nn\"\n[[scorers]]\nname = \"cosine\"\n",
			fixtures.Inputs(corpusPath, vecPath), authors)
	}
	verdict := "[verdict]\nattack = \"sr-nn\"\nutilities = [\"cosine\"]\nsearch = false\n"
	for _, c := range []struct {
		name, text, key, want string
	}{
		{"halves with 2 authors", head("authors = 2") + verdict + "above_chance = [0.1]\nhalves = true\n", "verdict.halves",
			`true: set "s" has 2 evaluation authors: want at least 4 (2 per half), or halves = false`},
		{"above_chance unreachable with every author", head("all_authors = true") + verdict + "above_chance = [0.9]\n", "verdict.above_chance",
			`0.9: set "s" has 4 authors, so its accuracy level is chance 0.25 + 0.9 = 1.15, above 1`},
		{"default pairs above the documents", head("authors = 4") + "[distinguish]\nwords = 50\n", "distinguish.pairs",
			`60 (the default, since [distinguish] has no pairs): set "s" has only 4 evaluation documents to be x: set pairs to at most 4`},
		{"pairs above the documents", head("authors = 4") + "[distinguish]\nwords = 50\npairs = 5\n", "distinguish.pairs",
			`5: set "s" has only 4 evaluation documents to be x: set pairs to at most 4`},
		{"pairs below the authors with verdict_levels", head("authors = 4") + verdict + "above_chance = [0.1]\n[distinguish]\nwords = 50\npairs = 3\nverdict_levels = [1]\n", "distinguish.pairs",
			`3: set "s" has 4 authors, and verdict_levels scores each author's items with the author's pairs: set pairs to at least 4`},
		{"words above the snippets", head("authors = 4") + "[distinguish]\nwords = 500\npairs = 4\ndistances = [1]\n", "distinguish.words",
			`500: the evaluation documents of set "s" have `},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "late.toml")
			cfg, err := runconfig.ParseConfig(path, c.text)
			if err != nil {
				t.Fatalf("the config itself is refused (the case needs the data): %v", err)
			}
			if err := runconfig.CheckComponents(cfg); err != nil {
				t.Fatal(err)
			}
			key := c.key[strings.LastIndex(c.key, ".")+1:]
			line := 0
			for i, l := range strings.Split(c.text, "\n") {
				if strings.HasPrefix(l, key+" =") || l == "[distinguish]" && line == 0 {
					line = i + 1
				}
			}
			want := fmt.Sprintf("%s:%d: %s: %s", path, line, c.key, c.want)
			err = CheckData(context.Background(), cfg, t.TempDir(), func(string, ...any) {})
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("CheckData: %v\nwant %s…", err, want)
			}
			out := filepath.Join(t.TempDir(), "run")
			_, err = Run(context.Background(), cfg, RunOptions{OutDir: out, DataDir: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Run: %v, want the same error", err)
			}
			cells, _ := os.ReadDir(filepath.Join(out, "cells"))
			for _, f := range cells {
				if f.Name() != "fingerprint.json" {
					t.Errorf("Run computed cell %s before refusing the config", f.Name())
				}
			}
		})
	}
	// The snippets' length the words error names is true: words = that length passes, one more
	// does not.
	path := filepath.Join(t.TempDir(), "late.toml")
	text := head("authors = 4") + "[distinguish]\npairs = 4\ndistances = [1]\nwords = "
	cfg, err := runconfig.ParseConfig(path, text+"500\n")
	if err != nil {
		t.Fatal(err)
	}
	err = CheckData(context.Background(), cfg, t.TempDir(), func(string, ...any) {})
	var n int
	if err == nil || !strings.Contains(err.Error(), "set words to at most ") {
		t.Fatalf("CheckData: %v", err)
	}
	if _, err := fmt.Sscanf(err.Error()[strings.LastIndex(err.Error(), "at most ")+len("at most "):], "%d", &n); err != nil {
		t.Fatal(err)
	}
	for words, ok := range map[int]bool{n: true, n + 1: false} {
		cfg, err := runconfig.ParseConfig(path, fmt.Sprintf("%s%d\n", text, words))
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckData(context.Background(), cfg, t.TempDir(), func(string, ...any) {}); (err == nil) != ok {
			t.Errorf("words = %d (the error named %d): CheckData %v", words, n, err)
		}
	}
}
