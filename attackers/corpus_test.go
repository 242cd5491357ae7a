package attackers

import (
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"dptext/internal/learn"
	"dptext/internal/rngs"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// styleCorpus is a generated authorship problem whose answer is known: one known text and
// several unknown texts per author, every author writing from the same vocabulary but with
// their own habits.
type styleCorpus struct {
	known, unknown           [][]string
	knownAuthor, unknownAuth []string
}

// testFunctionWords are the function words the generated authors choose between.
var testFunctionWords = []string{"the", "of", "and", "to", "in", "that", "it", "with", "as", "for",
	"was", "on", "but", "by", "at", "from", "which", "or", "this", "had"}

// generateStyleCorpus writes a corpus of authors × (1 known + unknownPer unknown) texts of
// length tokens each. An author differs from the others in three habits:
//   - word length: content words are weighted by exp(−|len − ℓ_a| / 6), ℓ_a spread over 3…10;
//   - function words (30 % of tokens): author-specific weights exp(0.5·N(0,1));
//   - spelling: 15 of the 300 content words end, in this author's hand, in an author-specific
//     letter (one "spelling variant" per author).
func generateStyleCorpus(seed uint64, authors, unknownPer, length int) styleCorpus {
	rng := rngs.New(seed, "attackers/test-corpus")
	vocab := make([]string, 300)
	for i := range vocab {
		n := 3 + rng.IntN(9)
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		vocab[i] = string(b)
	}
	var c styleCorpus
	for a := range authors {
		pref := 3 + 7*float64(a)/float64(max(1, authors-1))
		content := make([]float64, len(vocab))
		for i, w := range vocab {
			content[i] = math.Exp(-math.Abs(float64(len(w))-pref)/6) / float64(i+1)
		}
		function := make([]float64, len(testFunctionWords))
		for i := range function {
			function[i] = math.Exp(0.5 * rng.NormFloat64())
		}
		variant := byte('a' + (a*7)%26)
		write := func() []string {
			doc := make([]string, length)
			for t := range doc {
				if rng.Float64() < 0.3 {
					doc[t] = testFunctionWords[drawWeighted(rng, function)]
					continue
				}
				i := drawWeighted(rng, content)
				w := vocab[i]
				if i%(len(vocab)/15) == 7 {
					w = w[:len(w)-1] + string(variant)
				}
				doc[t] = w
			}
			return doc
		}
		name := string(rune('A' + a))
		c.known = append(c.known, write())
		c.knownAuthor = append(c.knownAuthor, name)
		for range unknownPer {
			c.unknown = append(c.unknown, write())
			c.unknownAuth = append(c.unknownAuth, name)
		}
	}
	return c
}

func drawWeighted(rng *rand.Rand, w []float64) int {
	var total float64
	for _, x := range w {
		total += x
	}
	u := rng.Float64() * total
	for i, x := range w {
		u -= x
		if u < 0 {
			return i
		}
	}
	return len(w) - 1
}

// shuffled returns the corpus with all tokens of all texts pooled, shuffled and dealt back
// into texts of the same lengths: the labels stay, the authorship signal is gone.
func (c styleCorpus) shuffled(seed uint64) styleCorpus {
	var pool []string
	for _, d := range slices.Concat(c.known, c.unknown) {
		pool = append(pool, d...)
	}
	rng := rngs.New(seed, "attackers/test-shuffle")
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	deal := func(docs [][]string) [][]string {
		out := make([][]string, len(docs))
		for i, d := range docs {
			out[i], pool = pool[:len(d)], pool[len(d):]
		}
		return out
	}
	s := c
	s.known = deal(c.known)
	s.unknown = deal(c.unknown)
	return s
}

// attack fits clf on the known texts and returns its predictions for the unknown texts.
func attack(t testing.TB, clf learn.Classifier, c styleCorpus, seed uint64) []string {
	t.Helper()
	if err := clf.Fit(rngs.New(seed, "fit"), c.known, c.knownAuthor); err != nil {
		t.Fatal(err)
	}
	return clf.Predict(rngs.New(seed, "predict"), c.unknown)
}

// The chance and signal tests use 10 authors × 5 unknown texts. Under the shuffled corpus
// each prediction is right with probability 1/10; treating the 50 as independent,
// P(Binomial(50, 0.1) ≥ 16) = 1.7e-5, so maxChanceCorrect = 15 wrongly fails about once in
// 57,000 seeds. minSignalCorrect = 25 (50 %, five times chance) cannot be reached by luck
// (P(Binomial(50, 0.1) ≥ 25) = 1.0e-12); at the fixed seed the attackers score 32–50.
const (
	testAuthors      = 10
	testUnknownPer   = 5
	maxChanceCorrect = 15
	minSignalCorrect = 25
)

// checkAttacker asserts that clf finds the authors of the generated corpus and falls to
// chance on its shuffled version, and compares its predictions with a golden file.
func checkAttacker(t *testing.T, name string, newClf func() learn.Classifier) {
	c := generateStyleCorpus(1, testAuthors, testUnknownPer, 1000)
	pred := attack(t, newClf(), c, 2)
	s := learn.Score(c.unknownAuth, pred)
	t.Logf("%s: %d of %d correct on the generated corpus", name, s.Correct, s.Total)
	if s.Correct < minSignalCorrect {
		t.Errorf("%s: %d of %d correct, want ≥ %d", name, s.Correct, s.Total, minSignalCorrect)
	}
	sh := c.shuffled(3)
	ps := learn.Score(sh.unknownAuth, attack(t, newClf(), sh, 2))
	t.Logf("%s: %d of %d correct on the shuffled corpus", name, ps.Correct, ps.Total)
	if ps.Correct > maxChanceCorrect {
		t.Errorf("%s: %d of %d correct on shuffled texts, want ≤ %d (chance is %d)",
			name, ps.Correct, ps.Total, maxChanceCorrect, ps.Total/testAuthors)
	}
	checkGolden(t, name, pred)
}

func checkGolden(t *testing.T, name string, pred []string) {
	t.Helper()
	path := filepath.Join("testdata", "golden-"+name+".json")
	if *update {
		b, err := json.MarshalIndent(pred, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	var want []string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pred, want) {
		t.Errorf("%s predictions differ from %s:\n got %v\nwant %v", name, path, pred, want)
	}
}
