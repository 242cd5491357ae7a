package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"dptext/internal/atomicfile"
)

// Answer is an attacker's attribution of one unknown text of a PAN problem.
type Answer struct {
	UnknownText string  // file name of the unknown text
	Author      string  // predicted candidate; "" for no attribution
	Score       float64 // confidence in [0, 1] (written by the older layout only)
}

// AnswersFile is the name of the file WriteAnswers writes the problem's answers to, in the
// layout's own convention: answers-<problem>.json (LayoutCDAA) or answers.json (LayoutMetaFile).
func AnswersFile(problem PANProblem) (string, error) {
	switch problem.Layout {
	case LayoutCDAA:
		return "answers-" + problem.Name + ".json", nil
	case LayoutMetaFile:
		return "answers.json", nil
	}
	return "", fmt.Errorf("corpus: answers for %s: layout %q: want %q or %q", problem.Name, problem.Layout, LayoutCDAA, LayoutMetaFile)
}

// WriteAnswers writes answers in the problem's own layout into outDir (created if needed):
//   - LayoutCDAA: answers-<problem>.json = [{"unknown-text": …, "predicted-author": …}], with
//     "<UNK>" for no attribution, as the PAN 2018/2019 evaluator expects;
//   - LayoutMetaFile: answers.json = {"answers": [{"unknown_text": …, "author": …, "score": …}]}.
//
// Every unknown text of the problem, open-set ones included, must be answered exactly once, with
// a candidate or "" (no attribution): PAN's evaluator counts an unanswered text as a rejection,
// which would credit a left-out open-set text as correctly rejected.
// The file is written under a temporary name and renamed into place.
func WriteAnswers(problem PANProblem, outDir string, answers []Answer) error {
	candidates := map[string]bool{}
	for _, c := range problem.Candidates {
		candidates[c.Name] = true
	}
	unknown := map[string]bool{}
	for _, u := range problem.Unknown {
		unknown[u.File] = true
	}
	seen := map[string]bool{}
	for _, a := range answers {
		switch {
		case !unknown[a.UnknownText]:
			return fmt.Errorf("corpus: answers for %s: %q is not an unknown text of the problem", problem.Name, a.UnknownText)
		case seen[a.UnknownText]:
			return fmt.Errorf("corpus: answers for %s: %q answered twice", problem.Name, a.UnknownText)
		case a.Author != "" && !candidates[a.Author]:
			return fmt.Errorf("corpus: answers for %s: %q is not a candidate author", problem.Name, a.Author)
		}
		seen[a.UnknownText] = true
	}
	for _, u := range problem.Unknown {
		if !seen[u.File] {
			return fmt.Errorf("corpus: answers for %s: unknown text %q has no answer (every unknown text must be answered; \"\" for no attribution)", problem.Name, u.File)
		}
	}
	name, err := AnswersFile(problem)
	if err != nil {
		return err
	}
	var doc any
	switch problem.Layout {
	case LayoutCDAA:
		type entry struct {
			Unknown   string `json:"unknown-text"`
			Predicted string `json:"predicted-author"`
		}
		list := make([]entry, len(answers))
		for i, a := range answers {
			list[i] = entry{a.UnknownText, a.Author}
			if a.Author == "" {
				list[i].Predicted = UnknownAuthor
			}
		}
		doc = list
	case LayoutMetaFile:
		type entry struct {
			Unknown string  `json:"unknown_text"`
			Author  string  `json:"author"`
			Score   float64 `json:"score"`
		}
		list := make([]entry, len(answers))
		for i, a := range answers {
			list[i] = entry{a.UnknownText, a.Author, a.Score}
		}
		doc = map[string]any{"answers": list}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(outDir, name), append(data, '\n')); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	return nil
}
