package runner

import (
	"context"
	"encoding/csv"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dptext/attackers"
	"dptext/experiments/runconfig"
	"dptext/internal/fixtures"
)

// TestVerdictMatchesOnReciprocalRank runs one fixture config twice, its [verdict] matching on
// char-ngram-svm's accuracy and on its reciprocal rank. With reciprocal_rank: every item of
// every cell has its reciprocal rank in predictions.csv (1 exactly where the attacker named the
// true author, else in [1/6, 1/2]: items misaligned with the 0/1 rows fail), results.csv adds
// one reciprocal_rank row per cell, their mean, and changes no other row (the accuracy run's
// results.csv is the other run's without those rows), and the verdict's levels are H_6/6 +
// above_chance on the reciprocal rank, not 1/6 + above_chance on accuracy.
func TestVerdictMatchesOnReciprocalRank(t *testing.T) {
	corpusPath, vecPath := fixtures.Corpus(t, 4, 2, 400)
	base := fixtureConfig(t, corpusPath, vecPath)
	run := func(measure string) (dir string) {
		src := base.Text + `[[scorers]]
name = "char-ngram-svm"
[verdict]
attack = "char-ngram-svm"
attack_measure = "` + measure + `"
above_chance = [0.05]
utilities = ["cosine"]
replicates = 200
search = false
`
		cfg, err := runconfig.ParseConfig(base.Path, src)
		if err != nil {
			t.Fatal(err)
		}
		dir = t.TempDir()
		if err := runFixture(t, cfg, dir, 2, context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	acc, rr := run("accuracy"), run("reciprocal_rank")

	preds, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(rr, "predictions.csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	correct := map[string]bool{} // set/mechanism/ε/repeat/item → named the true author
	ranks := map[string]float64{}
	for _, p := range preds[1:] {
		key := strings.Join([]string{p[0], p[1], p[2], p[3], p[8]}, "/")
		switch p[4] {
		case "char-ngram-svm":
			correct[key] = p[6] == p[7]
		case "char-ngram-svm/reciprocal_rank":
			x, err := strconv.ParseFloat(p[10], 64)
			if err != nil {
				t.Fatal(err)
			}
			ranks[key] = x
		}
	}
	if len(ranks) != len(correct) || len(ranks) != 3*2*6 { // 3 settings × 2 repeats × 6 items
		t.Fatalf("%d reciprocal ranks, %d 0/1 items: want 36 of each", len(ranks), len(correct))
	}
	sums := map[string]float64{}
	for key, x := range ranks {
		ok, found := correct[key]
		switch {
		case !found:
			t.Fatalf("reciprocal rank of %s has no 0/1 row", key)
		case ok && x != 1, !ok && !(x >= 1.0/6 && x <= 0.5):
			t.Errorf("%s: named the true author %v, reciprocal rank %v", key, ok, x)
		}
		sums[key[:strings.LastIndex(key, "/")]] += x / 6
	}

	accRows, rrRows := readFile(t, filepath.Join(acc, "results.csv")), readFile(t, filepath.Join(rr, "results.csv"))
	var kept []string
	n := 0
	for _, line := range strings.SplitAfter(rrRows, "\n") {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) > 6 && f[4] == "char-ngram-svm" && f[5] == "reciprocal_rank" {
			n++
			v, _ := strconv.ParseFloat(f[6], 64)
			if want := sums[strings.Join(f[:4], "/")]; math.Abs(v-want) > 1e-12 {
				t.Errorf("results.csv %s: want the mean of its items' reciprocal ranks, %v", strings.TrimSpace(line), want)
			}
			continue
		}
		kept = append(kept, line)
	}
	if n != 6 {
		t.Errorf("%d reciprocal_rank rows in results.csv, want one per cell (6)", n)
	}
	if strings.Join(kept, "") != accRows {
		t.Error("results.csv without the reciprocal_rank rows differs from the accuracy run's: an existing row changed")
	}
	if strings.Contains(readFile(t, filepath.Join(acc, "predictions.csv")), "reciprocal_rank") {
		t.Error("the accuracy run's predictions.csv has reciprocal ranks")
	}

	chance := attackers.ChanceReciprocalRank(6)
	mdRR, mdAcc := readFile(t, filepath.Join(rr, "verdict.md")), readFile(t, filepath.Join(acc, "verdict.md"))
	for _, want := range []string{"### char-ngram-svm reciprocal rank ≤ " + strconv.FormatFloat(chance+0.05, 'g', 3, 64) + " (chance " + strconv.FormatFloat(chance, 'g', 3, 64) + " + 0.05)",
		"where char-ngram-svm's reciprocal rank falls"} {
		if !strings.Contains(mdRR, want) {
			t.Errorf("verdict.md (reciprocal_rank) lacks %q:\n%s", want, mdRR)
		}
	}
	if want := "### char-ngram-svm ≤ 0.217 (chance 0.167 + 0.05)"; !strings.Contains(mdAcc, want) {
		t.Errorf("verdict.md (accuracy) lacks %q:\n%s", want, mdAcc)
	}
}
