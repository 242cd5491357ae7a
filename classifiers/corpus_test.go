package classifiers

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/embeddings"
	"dptext/internal/learn"
	"dptext/internal/rngs"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// topicCorpus is generated data with known topics: vocabulary word w has home topic
// w mod topics, and a document of topic t draws each of its words with weight 4 for the words
// at home in t and 1 for the others (so ≈ 4/(4 + topics − 1) of its words are at home).
type topicCorpus struct {
	docs   [][]string
	labels []string
}

func wordName(w int) string { return fmt.Sprintf("w%05d", w) }

func topicName(t int) string { return fmt.Sprintf("topic%d", t) }

func generateTopics(rng *rand.Rand, topics, vocab, perTopic, length int) topicCorpus {
	var c topicCorpus
	for i := range topics * perTopic {
		t := i % topics
		doc := make([]string, length)
		home := vocab / topics
		pHome := 4 * float64(home) / float64(4*home+vocab-home)
		for j := range doc {
			if rng.Float64() < pHome {
				doc[j] = wordName(rng.IntN(home)*topics + t)
				continue
			}
			w := rng.IntN(vocab)
			for w%topics == t {
				w = rng.IntN(vocab)
			}
			doc[j] = wordName(w)
		}
		c.docs = append(c.docs, doc)
		c.labels = append(c.labels, topicName(t))
	}
	return c
}

// topicStore gives every word of the vocabulary except the last tenth (left out of
// vocabulary) a vector near the centre of its home topic: centre ~ N(0, 1)^dim, plus N(0, 1)
// noise per coordinate.
func topicStore(rng *rand.Rand, topics, vocab, dim int) *embeddings.Store {
	centres := make([][]float32, topics)
	for t := range centres {
		centres[t] = make([]float32, dim)
		for j := range dim {
			centres[t][j] = float32(rng.NormFloat64())
		}
	}
	known := vocab - vocab/10
	words := make([]string, known)
	vecs := make([]float32, 0, known*dim)
	for w := range known {
		words[w] = wordName(w)
		for j := range dim {
			vecs = append(vecs, centres[w%topics][j]+float32(rng.NormFloat64()))
		}
	}
	s, err := embeddings.New(words, dim, vecs)
	if err != nil {
		panic(err)
	}
	return s
}

// randomLabels relabels every document with a topic drawn uniformly, independently of its
// words.
func (c topicCorpus) randomLabels(rng *rand.Rand, topics int) topicCorpus {
	out := topicCorpus{docs: c.docs, labels: make([]string, len(c.labels))}
	for i := range out.labels {
		out.labels[i] = topicName(rng.IntN(topics))
	}
	return out
}

// testCorpora are the fixed-seed train and test sets shared by the tests: 4 topics, a
// 400-word vocabulary, 60-word documents, 100 training and 100 test documents per topic.
func testCorpora() (train, test topicCorpus, store *embeddings.Store) {
	train = generateTopics(rngs.New(7, "train"), 4, 400, 100, 60)
	test = generateTopics(rngs.New(7, "test"), 4, 400, 100, 60)
	return train, test, topicStore(rngs.New(7, "store"), 4, 400, 16)
}

// classifierCases builds every classifier of the package with settings small enough for
// unit tests.
func classifierCases(t testing.TB, store *embeddings.Store) map[string]learn.Classifier {
	ftOpts := DefaultFastTextOptions()
	ftOpts.Dim, ftOpts.Epochs = 16, 5
	cases := map[string]func() (learn.Classifier, error){
		"fasttext": func() (learn.Classifier, error) { return NewFastText(ftOpts, nil) },
		"nb":       func() (learn.Classifier, error) { return NewTfidfNB(DefaultTfidfNBOptions()) },
		"svm":      func() (learn.Classifier, error) { return NewTfidfSVM(DefaultTfidfSVMOptions()) },
		"knn1":     func() (learn.Classifier, error) { return NewMeanEmbeddingKNN(store, KNNOptions{K: 1}) },
		"knn5":     func() (learn.Classifier, error) { return NewMeanEmbeddingKNN(store, KNNOptions{K: 5}) },
	}
	out := map[string]learn.Classifier{}
	for name, build := range cases {
		c, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = c
	}
	return out
}

// fitPredict trains clf on train and labels test, with fixed streams.
func fitPredict(t testing.TB, name string, clf learn.Classifier, train, test topicCorpus) []string {
	if err := clf.Fit(rngs.New(11, name+"/fit"), train.docs, train.labels); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return clf.Predict(rngs.New(11, name+"/predict"), test.docs)
}

// checkGolden compares lines with testdata/<name>.golden, rewriting it under -update.
func checkGolden(t *testing.T, name string, lines []string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update if the change is intended)", name, path)
	}
}
