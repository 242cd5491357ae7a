package attackers

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"dptext/learn"
	"dptext/rngs"
)

// KoppelOptions configure the koppel11 attacker.
type KoppelOptions struct {
	// Mode is "default" (word features on both sides), "compat" (the PAN reproducibility
	// code: the unknown text and every candidate window are joined with "" before taking
	// features, so 4-grams cross word boundaries and short words stop being features) or
	// "paper" (Koppel et al. 2011: cosine similarity, 40 % of the features per repetition).
	Mode string `toml:"mode"`
	// Features is the number of most frequent features kept (≥ 1; reference 20,000).
	Features int `toml:"features"`
	// MinTrainWords drops candidates whose known text has fewer words (≥ 0; reference 500,
	// the paper used 400). Dropped candidates are never answered and are listed by Dropped.
	// The Fernandes protocol truncates known texts to N ≈ 400 words, below 500: set it to 0
	// there or every candidate is dropped.
	MinTrainWords int `toml:"min_train_words"`
	// Repetitions is the number k of random feature subsets per unknown text (≥ 1; 100).
	Repetitions int `toml:"repetitions"`
	// FeatureShare is the share of the features drawn per repetition, in (0, 1]; 0 means the
	// mode's value: 0.5 (default, compat) or 0.4 (paper).
	FeatureShare float64 `toml:"feature_share"`
	// Threshold σ in [0, 1]: an unknown whose score (wins/k) is below it gets learn.NoAnswer;
	// 0 is the closed-set setting.
	Threshold float64 `toml:"threshold"`
	// Workers is the number of unknown texts attributed at once (≥ 0; 0 = GOMAXPROCS). The
	// predictions do not depend on it.
	Workers int `toml:"workers"`
}

// DefaultKoppelOptions are the PAN reproducibility parameters: default mode, 20,000 features,
// 500 training words, 100 repetitions, the mode's feature share, closed set, all cores.
func DefaultKoppelOptions() KoppelOptions {
	return KoppelOptions{Mode: "default", Features: 20000, MinTrainWords: 500, Repetitions: 100}
}

// Koppel is the koppel11 authorship attacker (Koppel, Schler and Argamon, "Authorship
// attribution in the wild", LRE 45, 2011, Sect. 4; as reproduced by Potthast et al., ECIR
// 2016, SPEC §5).
//
// Features: the known texts are split into words; a word of at most 4 characters is a feature
// as it is, a longer word yields its character 4-grams; the Features most frequent over all
// kept candidates' known texts are kept (ties: first occurrence). For an unknown text of m
// words, L = min(m, shortest kept candidate's word count) and its first L words are used.
// Then k times: draw a random subset of ⌊share·F⌋ features; for each candidate (in order of
// first appearance in the training labels) draw a random window of L consecutive words of its
// known text (start uniform on 0…n−L) and compute the similarity of the two feature-count
// vectors restricted to the subset, min-max Σ min(a,b) / Σ max(a,b) (0 when both are empty),
// or in paper mode cosine a·b / (‖a‖‖b‖) (0 when either is empty); the most similar candidate,
// the first on ties, gets a win. The answer is the candidate with most wins (first on ties),
// its score wins/k; a score below Threshold answers learn.NoAnswer. An empty unknown text
// scores 0 against everyone, so the first candidate wins every repetition, as in the
// reference.
//
// Unlike the reference code, a candidate's several known texts are joined as word lists (the
// reference concatenated raw files, which can fuse the last word of one with the first of the
// next), and Features may exceed the number of distinct features (the reference refused).
//
// Fit is deterministic. Predict draws one child stream per unknown text from rng (rngs.Child,
// in input order) before attributing them in parallel, so predictions do not depend on
// Workers.
type Koppel struct {
	opts   KoppelOptions
	share  float64
	joined bool

	vocab      map[string]int32
	candidates []string
	dropped    []string
	streams    []*featureStream
	minWords   int
}

// NewKoppel validates opts and returns an unfitted attacker.
func NewKoppel(opts KoppelOptions) (*Koppel, error) {
	k := &Koppel{opts: opts, share: opts.FeatureShare}
	switch opts.Mode {
	case "default":
		k.share = cmp.Or(k.share, 0.5)
	case "compat":
		k.share = cmp.Or(k.share, 0.5)
		k.joined = true
	case "paper":
		k.share = cmp.Or(k.share, 0.4)
	default:
		return nil, fmt.Errorf("koppel11: mode = %q: want \"default\", \"compat\" or \"paper\"", opts.Mode)
	}
	switch {
	case opts.Features < 1:
		return nil, fmt.Errorf("koppel11: features = %d: want ≥ 1", opts.Features)
	case opts.MinTrainWords < 0:
		return nil, fmt.Errorf("koppel11: min_train_words = %d: want ≥ 0", opts.MinTrainWords)
	case opts.Repetitions < 1:
		return nil, fmt.Errorf("koppel11: repetitions = %d: want ≥ 1", opts.Repetitions)
	case !(opts.FeatureShare >= 0 && opts.FeatureShare <= 1):
		return nil, fmt.Errorf("koppel11: feature_share = %v: want a share in (0, 1], or 0 for the mode's value", opts.FeatureShare)
	case !(opts.Threshold >= 0 && opts.Threshold <= 1):
		return nil, fmt.Errorf("koppel11: threshold = %v: want a score in [0, 1] (0 = closed set)", opts.Threshold)
	case opts.Workers < 0:
		return nil, fmt.Errorf("koppel11: workers = %d: want ≥ 0 (0 = GOMAXPROCS)", opts.Workers)
	}
	return k, nil
}

// Fit concatenates the known texts of each candidate (in document order), drops candidates
// with fewer than MinTrainWords words (or none at all) and selects the features. rng is not
// used.
func (k *Koppel) Fit(_ *rand.Rand, docs [][]string, labels []string) error {
	if len(docs) != len(labels) {
		return fmt.Errorf("koppel11: %d documents but %d labels", len(docs), len(labels))
	}
	var names []string
	texts := map[string][]string{}
	for i, d := range docs {
		if _, seen := texts[labels[i]]; !seen {
			names = append(names, labels[i])
			texts[labels[i]] = nil
		}
		texts[labels[i]] = append(texts[labels[i]], splitWords(d)...)
	}
	k.candidates, k.dropped, k.streams = nil, nil, nil
	var corpus []string
	k.minWords = math.MaxInt
	for _, name := range names {
		words := texts[name]
		if len(words) < k.opts.MinTrainWords || len(words) == 0 {
			k.dropped = append(k.dropped, name)
			continue
		}
		k.candidates = append(k.candidates, name)
		corpus = append(corpus, words...)
		k.minWords = min(k.minWords, len(words))
	}
	if len(k.candidates) == 0 {
		return fmt.Errorf("koppel11: all %d candidates have fewer than min_train_words = %d words",
			len(names), k.opts.MinTrainWords)
	}
	k.vocab = selectFeatures(corpus, k.opts.Features)
	for _, name := range k.candidates {
		k.streams = append(k.streams, k.stream(texts[name]))
	}
	return nil
}

func (k *Koppel) stream(words []string) *featureStream {
	if k.joined {
		return newJoinedStream(words, k.vocab)
	}
	return newWordStream(words, k.vocab)
}

// Candidates returns the candidates kept by the last Fit, in answer order.
func (k *Koppel) Candidates() []string { return k.candidates }

// Dropped returns the candidates the last Fit dropped for having fewer than MinTrainWords words.
func (k *Koppel) Dropped() []string { return k.dropped }

// Predict returns the attributed author of every unknown text (see PredictScores).
func (k *Koppel) Predict(rng *rand.Rand, docs [][]string) []string {
	authors, _ := k.PredictScores(rng, docs)
	return authors
}

// PredictScores returns the attributed author of every unknown text and its score wins/k
// (the score is reported even when it is below Threshold and the answer is learn.NoAnswer).
// It panics if called before a successful Fit.
func (k *Koppel) PredictScores(rng *rand.Rand, docs [][]string) (authors []string, scores []float64) {
	authors, scores, _ = k.PredictTopTwo(rng, docs)
	return authors, scores
}

// PredictTopTwo is PredictScores with the runner-up's score as well: second[i] is the largest
// share of wins of a candidate other than the best one (equal to scores[i] on a tie). The
// answers and scores are those of PredictScores with the same rng.
func (k *Koppel) PredictTopTwo(rng *rand.Rand, docs [][]string) (authors []string, scores, second []float64) {
	if k.vocab == nil {
		panic("koppel11: PredictScores before a successful Fit")
	}
	streams := make([]*rand.Rand, len(docs))
	for i := range docs {
		streams[i] = rngs.Child(rng, fmt.Sprintf("koppel11/unknown=%d", i))
	}
	authors = make([]string, len(docs))
	scores = make([]float64, len(docs))
	second = make([]float64, len(docs))
	workers := k.opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(docs)))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := newKoppelScratch(len(k.vocab))
			for i := range next {
				best, wins, runnerUp := k.attribute(streams[i], docs[i], sc)
				scores[i] = float64(wins) / float64(k.opts.Repetitions)
				second[i] = float64(runnerUp) / float64(k.opts.Repetitions)
				authors[i] = k.candidates[best]
				if scores[i] < k.opts.Threshold {
					authors[i] = learn.NoAnswer
				}
			}
		}()
	}
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Wait()
	return authors, scores, second
}

// koppelScratch is one worker's reusable state. The per-feature state sits in one slot so a
// feature costs one memory access; stamps mark what is current instead of clearing arrays.
type koppelScratch struct {
	slots  []featureSlot
	rep    uint32 // stamp of the current repetition
	window uint32 // stamp of the current candidate window
	perm   []int32
	buf    []int32
}

// featureSlot is the state of one feature while one unknown text is attributed.
type featureSlot struct {
	chosen  uint32 // == rep: the feature is in this repetition's subset
	seen    uint32 // == window: count holds this window's count (else it is 0)
	unknown int32  // count in the unknown text
	count   int32  // count in the current candidate window
}

func newKoppelScratch(features int) *koppelScratch {
	return &koppelScratch{
		slots: make([]featureSlot, features),
		perm:  make([]int32, features),
		buf:   make([]int32, 1),
	}
}

// nextRep starts a repetition, clearing the subset marks when the stamp wraps around.
func (sc *koppelScratch) nextRep() {
	sc.rep++
	if sc.rep == 0 {
		for i := range sc.slots {
			sc.slots[i].chosen = 0
		}
		sc.rep = 1
	}
}

// nextWindow starts a candidate window, clearing the count marks when the stamp wraps around.
func (sc *koppelScratch) nextWindow() {
	sc.window++
	if sc.window == 0 {
		for i := range sc.slots {
			sc.slots[i].seen = 0
		}
		sc.window = 1
	}
}

// attribute runs the k repetitions for one unknown text and returns the winning candidate's
// index and its number of wins.
func (k *Koppel) attribute(rng *rand.Rand, doc []string, sc *koppelScratch) (best, bestWins, secondWins int) {
	words := splitWords(doc)
	L := min(len(words), k.minWords)
	u := k.stream(words[:L])
	uids := u.window(0, L, make([]int32, 1))
	var distinct []int32
	for _, id := range uids {
		if sc.slots[id].unknown == 0 {
			distinct = append(distinct, id)
		}
		sc.slots[id].unknown++
	}
	defer func() {
		for _, id := range distinct {
			sc.slots[id].unknown = 0
		}
	}()

	F := len(sc.perm)
	for i := range sc.perm {
		sc.perm[i] = int32(i)
	}
	m := max(1, int(k.share*float64(F)))
	cosine := k.opts.Mode == "paper"
	wins := make([]int, len(k.candidates))
	for range k.opts.Repetitions {
		sc.nextRep()
		for i := range m { // partial Fisher–Yates: perm[:m] is a uniform m-subset
			j := i + rng.IntN(F-i)
			sc.perm[i], sc.perm[j] = sc.perm[j], sc.perm[i]
			sc.slots[sc.perm[i]].chosen = sc.rep
		}
		var sumB, sumB2 float64
		for _, id := range distinct {
			if sc.slots[id].chosen == sc.rep {
				b := float64(sc.slots[id].unknown)
				sumB += b
				sumB2 += b * b
			}
		}
		bestSim, bestCand := math.Inf(-1), 0
		for c, fs := range k.streams {
			start := rng.IntN(fs.words() - L + 1)
			sc.nextWindow()
			sim := sc.similarity(fs.window(start, L, sc.buf), sumB, sumB2, cosine)
			if sim > bestSim {
				bestSim, bestCand = sim, c
			}
		}
		wins[bestCand]++
	}
	for c, w := range wins {
		if w > bestWins {
			best, bestWins = c, w
		}
	}
	for c, w := range wins {
		if c != best && w > secondWins {
			secondWins = w
		}
	}
	return best, bestWins, secondWins
}

// similarity scores a candidate window (its feature ids) against the unknown text over
// the chosen features, in one pass: min(a, b) grows by one whenever a window count below the
// unknown's count is incremented, and Σ max = Σ a + Σ b − Σ min.
func (sc *koppelScratch) similarity(ids []int32, sumB, sumB2 float64, cosine bool) float64 {
	var sumA, sumMin, sumA2, sumAB int64
	for _, id := range ids {
		slot := &sc.slots[id]
		if slot.chosen != sc.rep {
			continue
		}
		a := slot.count
		if slot.seen != sc.window {
			a, slot.seen = 0, sc.window
		}
		sumA++
		if a < slot.unknown {
			sumMin++
		}
		sumA2 += 2*int64(a) + 1
		sumAB += int64(slot.unknown)
		slot.count = a + 1
	}
	if cosine {
		if sumA2 == 0 || sumB2 == 0 {
			return 0
		}
		return float64(sumAB) / (math.Sqrt(float64(sumA2)) * math.Sqrt(sumB2))
	}
	denom := float64(sumA) + sumB - float64(sumMin)
	if denom == 0 {
		return 0
	}
	return float64(sumMin) / denom
}
