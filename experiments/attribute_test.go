package experiments

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/learn"
)

// authorText writes text in the habits of author a: its own favourite words and spelling.
func authorText(rng *rand.Rand, a, words int) string {
	common := []string{"the", "of", "and", "ship", "sea", "wind", "harbour", "sail", "rope", "deck"}
	habits := [][]string{{"colour", "whilst", "amongst"}, {"color", "while", "among"}, {"hue", "during", "betwixt"}}
	var b strings.Builder
	for i := 0; i < words; i++ {
		if rng.Float64() < 0.2 {
			b.WriteString(habits[a][rng.IntN(3)])
		} else {
			b.WriteString(common[rng.IntN(len(common))])
		}
		b.WriteString(" ")
	}
	return b.String()
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeText(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// panCollection writes a PAN 2018/2019 collection with one problem of 3 candidates.
func panCollection(t *testing.T) string {
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	writeJSON(t, filepath.Join(root, "collection-info.json"), []map[string]string{{"problem-name": "problem00001", "language": "en", "encoding": "UTF-8"}})
	dir := filepath.Join(root, "problem00001")
	var cands []map[string]string
	var truth []map[string]string
	for a := 0; a < 3; a++ {
		name := fmt.Sprintf("candidate%05d", a+1)
		cands = append(cands, map[string]string{"author-name": name})
		writeText(t, filepath.Join(dir, name, "known00001.txt"), authorText(rng, a, 600))
		for u := 0; u < 2; u++ {
			file := fmt.Sprintf("unknown%05d.txt", a*2+u+1)
			writeText(t, filepath.Join(dir, "unknown", file), authorText(rng, a, 300))
			truth = append(truth, map[string]string{"unknown-text": file, "true-author": name})
		}
	}
	writeJSON(t, filepath.Join(dir, "problem-info.json"), map[string]any{"unknown-folder": "unknown", "candidate-authors": cands})
	writeJSON(t, filepath.Join(dir, "ground-truth.json"), map[string]any{"ground_truth": truth})
	return root
}

func TestAttributeAnswersInThePANFormat(t *testing.T) {
	in, out := panCollection(t), t.TempDir()
	for _, attacker := range []string{"koppel11", "char-ngram-svm"} {
		res, err := Attribute(AttributeOptions{Input: in, Output: out, Seed: 1,
			NewAttacker: func() (learn.Classifier, error) { return BuildClassifier(attacker, nil, &Env{Workers: 1}) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].Labelled != 6 || res[0].Correct < 5 {
			t.Fatalf("%s: %+v; want at least 5 of 6 right on distinct spelling habits", attacker, res)
		}
		var answers []map[string]string
		data, err := os.ReadFile(filepath.Join(out, "answers-problem00001.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &answers); err != nil {
			t.Fatal(err)
		}
		if len(answers) != 6 || answers[0]["unknown-text"] == "" || !strings.HasPrefix(answers[0]["predicted-author"], "candidate") {
			t.Fatalf("%s: answers %v", attacker, answers)
		}
		if !strings.Contains(FormatResults(res), "overall accuracy") {
			t.Errorf("no accuracy line: %s", FormatResults(res))
		}
	}
}

// The older layout of the PAN reproducibility code gets answers.json with scores.
func TestAttributeAnswersInTheOlderLayout(t *testing.T) {
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	var cands, unknown, truth []map[string]string
	for a := 0; a < 3; a++ {
		name := fmt.Sprintf("candidate%05d", a+1)
		cands = append(cands, map[string]string{"author-name": name})
		writeText(t, filepath.Join(root, name, "known00001.txt"), authorText(rng, a, 600))
		file := fmt.Sprintf("unknown%05d.txt", a+1)
		writeText(t, filepath.Join(root, "unknown", file), authorText(rng, a, 300))
		unknown = append(unknown, map[string]string{"unknown-text": file})
		truth = append(truth, map[string]string{"unknown-text": file, "true-author": name})
	}
	writeJSON(t, filepath.Join(root, "meta-file.json"), map[string]any{"folder": "unknown", "language": "EN",
		"encoding": "UTF8", "candidate-authors": cands, "unknown-texts": unknown})
	writeJSON(t, filepath.Join(root, "ground-truth.json"), map[string]any{"ground-truth": truth})
	out := t.TempDir()
	res, err := Attribute(AttributeOptions{Input: root, Output: out, Seed: 1,
		NewAttacker: func() (learn.Classifier, error) { return BuildClassifier("koppel11", nil, &Env{Workers: 1}) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Labelled != 3 || res[0].Correct != 3 {
		t.Fatalf("%+v", res)
	}
	var answers struct {
		Answers []struct {
			UnknownText string  `json:"unknown_text"`
			Author      string  `json:"author"`
			Score       float64 `json:"score"`
		} `json:"answers"`
	}
	data, err := os.ReadFile(filepath.Join(out, "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &answers); err != nil {
		t.Fatal(err)
	}
	if len(answers.Answers) != 3 || answers.Answers[0].Score <= 0 || answers.Answers[0].Score > 1 {
		t.Fatalf("answers %+v; koppel11's score is its share of wins in (0, 1]", answers)
	}
}
