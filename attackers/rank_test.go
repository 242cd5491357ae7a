package attackers

import (
	"math"
	"slices"
	"testing"

	"math/rand/v2"

	"dptext/internal/rngs"
)

// TestReciprocalRankHandExample checks ReciprocalRank on hand-computed cases with ties. The
// mutant of optimistic tie-breaking (the true author first among its ties: 1/(g+1)) gives
// 1/2 instead of (1/2 + 1/3 + 1/4)/3 = 13/36 in the second case and 1 instead of H_4/4 in the
// third, and fails.
func TestReciprocalRankHandExample(t *testing.T) {
	cands := []string{"a", "b", "c", "d"}
	for _, tc := range []struct {
		name   string
		scores []float64
		truth  string
		all    int
		want   float64
	}{
		{"alone second", []float64{0.9, 0.5, 0.1, 0.3}, "b", 4, 1.0 / 2},
		{"tied with two others below one", []float64{0.9, 0.5, 0.5, 0.5}, "c", 4, (1.0/2 + 1.0/3 + 1.0/4) / 3},
		{"all tied is a uniform guess", []float64{1, 1, 1, 1}, "d", 4, ChanceReciprocalRank(4)},
		{"first alone", []float64{0.1, 0.2, 0.3, 0.4}, "d", 4, 1},
		{"dropped candidate ties the bottom with the other unscored one", []float64{3, 2, 1, 0}, "e", 6, (1.0/5 + 1.0/6) / 2},
		{"scored -inf ties the unscored", []float64{3, 2, 1, math.Inf(-1)}, "d", 5, (1.0/4 + 1.0/5) / 2},
	} {
		got, err := ReciprocalRank(cands, tc.scores, tc.truth, tc.all)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: reciprocal rank %v, want %v", tc.name, got, tc.want)
		}
	}
	if got, want := ChanceReciprocalRank(4), (1+1.0/2+1.0/3+1.0/4)/4; math.Abs(got-want) > 1e-15 {
		t.Errorf("H_4/4 = %v, want %v", got, want)
	}
	for _, bad := range []struct {
		scores []float64
		truth  string
		all    int
	}{{[]float64{1, 2, 3}, "a", 4}, {[]float64{1, math.NaN(), 3, 4}, "a", 4}, {[]float64{1, 2, 3, 4}, "e", 4}, {[]float64{1, 2, 3, 4}, "a", 3}} {
		if _, err := ReciprocalRank(cands, bad.scores, bad.truth, bad.all); err == nil {
			t.Errorf("scores %v truth %s of %d: no error", bad.scores, bad.truth, bad.all)
		}
	}
}

// TestRankersAnswerAsPredict holds PredictRanked to Predict (same answers from the same rng)
// and its scores to its answers (the answer has the highest score), for both rankers, and
// checks that the true author's reciprocal rank is above chance on texts the attackers
// attribute well (a ranker whose scores ignored the text would sit at H_n/n).
func TestRankersAnswerAsPredict(t *testing.T) {
	c := generateStyleCorpus(4, 8, 3, 600)
	k, err := NewKoppel(DefaultKoppelOptions())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewCharNgram(DefaultCharNgramOptions())
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]interface {
		Ranker
		Fit(rng *rand.Rand, docs [][]string, labels []string) error
		Predict(rng *rand.Rand, docs [][]string) []string
	}{"koppel11": k, "char-ngram-svm": s} {
		if err := r.Fit(rngs.New(1, "fit"), c.known, c.knownAuthor); err != nil {
			t.Fatal(err)
		}
		want := r.Predict(rngs.New(5, "predict"), c.unknown)
		got, cands, scores := r.PredictRanked(rngs.New(5, "predict"), c.unknown)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: PredictRanked %v, Predict %v", name, got, want)
		}
		sum := 0.0
		for i, sc := range scores {
			j := slices.Index(cands, got[i])
			if j < 0 || slices.Max(sc) != sc[j] {
				t.Fatalf("%s: document %d answered %s, scores %v of %v", name, i, got[i], sc, cands)
			}
			rr, err := ReciprocalRank(cands, sc, c.unknownAuth[i], len(cands))
			if err != nil {
				t.Fatal(err)
			}
			sum += rr
		}
		if mrr := sum / float64(len(scores)); mrr < ChanceReciprocalRank(len(cands))+0.2 {
			t.Errorf("%s: mean reciprocal rank %.3f, want well above chance %.3f", name, mrr, ChanceReciprocalRank(len(cands)))
		}
	}
}
