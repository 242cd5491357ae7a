package attackers

import (
	"slices"
	"strings"
	"testing"

	"dptext/internal/learn"
	"dptext/internal/rngs"
)

func TestNewKoppelRejectsBadOptions(t *testing.T) {
	cases := []struct {
		key    string
		modify func(*KoppelOptions)
	}{
		{"mode", func(o *KoppelOptions) { o.Mode = "fast" }},
		{"features", func(o *KoppelOptions) { o.Features = 0 }},
		{"min_train_words", func(o *KoppelOptions) { o.MinTrainWords = -1 }},
		{"repetitions", func(o *KoppelOptions) { o.Repetitions = 0 }},
		{"feature_share", func(o *KoppelOptions) { o.FeatureShare = 1.5 }},
		{"feature_share", func(o *KoppelOptions) { o.FeatureShare = -0.1 }},
		{"threshold", func(o *KoppelOptions) { o.Threshold = 2 }},
		{"workers", func(o *KoppelOptions) { o.Workers = -1 }},
	}
	for _, c := range cases {
		opts := DefaultKoppelOptions()
		c.modify(&opts)
		_, err := NewKoppel(opts)
		if err == nil || !strings.Contains(err.Error(), c.key+" = ") {
			t.Errorf("%s: error %v, want one naming the key", c.key, err)
		}
	}
	for _, mode := range []string{"default", "compat", "paper"} {
		opts := DefaultKoppelOptions()
		opts.Mode = mode
		if _, err := NewKoppel(opts); err != nil {
			t.Errorf("mode %s: %v", mode, err)
		}
	}
}

func TestKoppelFindsAuthorsAndFallsToChance(t *testing.T) {
	for _, mode := range []string{"default", "compat", "paper"} {
		t.Run(mode, func(t *testing.T) {
			checkAttacker(t, "koppel11-"+mode, func() learn.Classifier {
				opts := DefaultKoppelOptions()
				opts.Mode = mode
				k, err := NewKoppel(opts)
				if err != nil {
					t.Fatal(err)
				}
				return k
			})
		})
	}
}

func TestKoppelSameAnswersAtAnyWorkerCount(t *testing.T) {
	c := generateStyleCorpus(4, 8, 3, 600)
	run := func(workers int) ([]string, []float64) {
		opts := DefaultKoppelOptions()
		opts.Workers = workers
		k, err := NewKoppel(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Fit(nil, c.known, c.knownAuthor); err != nil {
			t.Fatal(err)
		}
		return k.PredictScores(rngs.New(5, "predict"), c.unknown)
	}
	a1, s1 := run(1)
	a4, s4 := run(4)
	if !slices.Equal(a1, a4) || !slices.Equal(s1, s4) {
		t.Fatalf("workers 1: %v %v\nworkers 4: %v %v", a1, s1, a4, s4)
	}
}

func TestJoinedStreamCrossesWordBoundaries(t *testing.T) {
	vocab := map[string]int32{"abcd": 0, "bcde": 1, "cdef": 2, "ab": 3, "cde": 4}
	words := []string{"ab", "cde", "f"}
	buf := make([]int32, 1)
	joined := newJoinedStream(words, vocab)
	if got := joined.window(0, 3, buf); !slices.Equal(got, []int32{0, 1, 2}) {
		t.Errorf("joined ab|cde|f: ids %v, want abcd bcde cdef = [0 1 2]", got)
	}
	if got := joined.window(1, 2, buf); !slices.Equal(got, []int32{2}) {
		t.Errorf("joined cde|f (4 runes, kept whole): ids %v, want cdef = [2]", got)
	}
	if got := joined.window(0, 1, buf); !slices.Equal(got, []int32{3}) {
		t.Errorf("joined ab: ids %v, want [3]", got)
	}
	word := newWordStream(words, vocab)
	if got := word.window(0, 3, buf); !slices.Equal(got, []int32{3, 4}) {
		t.Errorf("words ab cde f: ids %v, want ab cde = [3 4] (f is not a feature)", got)
	}
	long := newWordStream([]string{"abcdef"}, vocab)
	if got := long.window(0, 1, buf); !slices.Equal(got, []int32{0, 1, 2}) {
		t.Errorf("word abcdef: ids %v, want its 4-grams [0 1 2]", got)
	}
}

// In this hand example the unknown text "wx yz" shares the short words wx and yz with
// candidate Y, but joined it reads "wxyz", candidate X's only word; Y's joined windows
// ("yzmm", "mmwx") contain no feature. So the default mode answers Y and compat answers X.
func TestKoppelCompatJoinsTestWords(t *testing.T) {
	known := [][]string{
		strings.Fields(strings.Repeat("wxyz ", 10)),
		strings.Fields(strings.Repeat("yz mm wx mm ", 5)),
	}
	unknown := [][]string{{"wx", "yz"}}
	want := map[string]string{"default": "Y", "compat": "X"}
	for mode, author := range want {
		opts := DefaultKoppelOptions()
		opts.Mode = mode
		opts.MinTrainWords = 0
		opts.FeatureShare = 1
		k, err := NewKoppel(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Fit(nil, known, []string{"X", "Y"}); err != nil {
			t.Fatal(err)
		}
		authors, scores := k.PredictScores(rngs.New(1, "p"), unknown)
		if authors[0] != author || scores[0] != 1 {
			t.Errorf("%s: answered %s with score %v, want %s with 1", mode, authors[0], scores[0], author)
		}
	}
}

func TestKoppelDropsShortCandidatesAndAppliesThreshold(t *testing.T) {
	c := generateStyleCorpus(6, 5, 4, 600).shuffled(6)
	c.known[2] = c.known[2][:100]
	opts := DefaultKoppelOptions()
	opts.Threshold = 0.5
	k, err := NewKoppel(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Fit(nil, c.known, c.knownAuthor); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(k.Dropped(), []string{"C"}) || len(k.Candidates()) != 4 {
		t.Fatalf("dropped %v, kept %v; want C dropped", k.Dropped(), k.Candidates())
	}
	authors, scores := k.PredictScores(rngs.New(7, "p"), c.unknown)
	var abstained int
	for i, a := range authors {
		if a == "C" {
			t.Errorf("unknown %d attributed to the dropped candidate", i)
		}
		if (a == learn.NoAnswer) != (scores[i] < 0.5) {
			t.Errorf("unknown %d: answer %s with score %v, threshold 0.5", i, a, scores[i])
		}
		if a == learn.NoAnswer {
			abstained++
		}
	}
	// The texts are shuffled, so wins spread over the candidates and some scores must fall
	// below 0.5 for the threshold to have been exercised.
	if abstained == 0 {
		t.Errorf("no abstention among scores %v", scores)
	}

	short := DefaultKoppelOptions()
	k, _ = NewKoppel(short)
	if err := k.Fit(nil, [][]string{{"a", "b"}}, []string{"A"}); err == nil ||
		!strings.Contains(err.Error(), "min_train_words") {
		t.Errorf("fit with only short candidates: %v, want an error naming min_train_words", err)
	}
}

// benchCorpus mirrors the measurement of the reference code: 20 candidates and 20 unknown
// texts of 373 words, 100 repetitions.
func benchCorpus() styleCorpus { return generateStyleCorpus(9, 20, 1, 373) }

func BenchmarkKoppelFit(b *testing.B) {
	c := benchCorpus()
	opts := DefaultKoppelOptions()
	opts.MinTrainWords = 300
	k, _ := NewKoppel(opts)
	for b.Loop() {
		if err := k.Fit(nil, c.known, c.knownAuthor); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKoppelPredict(b *testing.B) {
	c := benchCorpus()
	for _, mode := range []string{"default", "compat", "paper"} {
		b.Run("mode="+mode, func(b *testing.B) {
			opts := DefaultKoppelOptions()
			opts.Mode = mode
			opts.MinTrainWords = 300
			opts.Workers = 1
			k, _ := NewKoppel(opts)
			if err := k.Fit(nil, c.known, c.knownAuthor); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				k.Predict(rngs.New(1, "p"), c.unknown)
			}
		})
	}
}
