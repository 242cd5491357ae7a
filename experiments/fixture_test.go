package experiments

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture writes a generated corpus (JSONL) and embeddings (text format) into a temporary
// folder: 2 topics, authorsPerTopic authors each, docsPerAuthor documents of docWords words.
// Each topic draws content words from its own cluster of the vocabulary, each author prefers
// its own spelling variants, so both tasks are learnable.
func fixture(t testing.TB, authorsPerTopic, docsPerAuthor, docWords int) (corpusPath, vecPath string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	topics := []string{"sea", "land"}
	vocab := map[string][]string{}
	var allWords []string
	for ti, topic := range topics {
		for i := 0; i < 60; i++ {
			w := fmt.Sprintf("%s%c%c%c", topic, 'a'+rune(i%26), 'a'+rune((i/26)%26), 'a'+rune(ti))
			vocab[topic] = append(vocab[topic], w)
			allWords = append(allWords, w)
		}
	}
	f, err := os.Create(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for ti, topic := range topics {
		for a := 0; a < authorsPerTopic; a++ {
			author := fmt.Sprintf("author-%s-%d", topic, a)
			habit := []string{fmt.Sprintf("quirk%dx%d", ti, a), fmt.Sprintf("tic%dy%d", ti, a)}
			allWords = append(allWords, habit...)
			for d := 0; d < docsPerAuthor; d++ {
				words := make([]string, docWords)
				for i := range words {
					switch r := rng.Float64(); {
					case r < 0.15:
						words[i] = habit[rng.IntN(2)]
					case r < 0.25:
						words[i] = "the"
					default:
						words[i] = vocab[topic][rng.IntN(len(vocab[topic]))]
					}
				}
				doc := map[string]string{"id": fmt.Sprintf("%s-%d", author, d), "author": author, "topic": topic,
					"text": strings.Join(words, " ") + "."}
				if err := enc.Encode(doc); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	f.Close()
	vf, err := os.Create(filepath.Join(dir, "vectors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(vf)
	for _, word := range allWords {
		fmt.Fprint(w, word)
		base := 0.0
		if strings.HasPrefix(word, "sea") {
			base = 1
		}
		for d := 0; d < 8; d++ {
			fmt.Fprintf(w, " %.4f", base*float64(d%2)+rng.NormFloat64()*0.3)
		}
		fmt.Fprintln(w)
	}
	w.Flush()
	vf.Close()
	return filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "vectors.txt")
}
