package attackers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"dptext/internal/learn"
	"dptext/internal/rngs"
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
	// Context, when not nil, cuts the repetitions short once it is cancelled; the predictions
	// are then meaningless and must be discarded (the runner writes no cell after a
	// cancellation). Not a config key.
	Context context.Context `toml:"-"`
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

	// whole[c] lists the features of candidate c's whole text with their counts, by feature:
	// a window's sums are the whole text's minus those of the words outside the window.
	whole [][]wholeCount
	// wholeAt[c][i] is the whole-text count in candidate c of the feature streams[c].ids[i].
	wholeAt [][]int32
	// once[c] and twice[c] are bitsets (bit f) of the features that occur at least once and at
	// least twice in candidate c's whole text: a subset's Σ a over the whole text is mostly
	// their popcounts under the subset (see wholeSums).
	once, twice [][]uint64
}

// wholeCount is one candidate's count of one feature over its whole text.
type wholeCount struct {
	feature int32
	count   int32
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
	k.indexWholeTexts()
	return nil
}

// indexWholeTexts fills whole from the candidates' streams.
func (k *Koppel) indexWholeTexts() {
	counts := make([]int32, len(k.vocab))
	buf := make([]int32, 1)
	k.whole = make([][]wholeCount, len(k.streams))
	k.wholeAt = make([][]int32, len(k.streams))
	words := (len(k.vocab) + 63) / 64
	k.once, k.twice = make([][]uint64, len(k.streams)), make([][]uint64, len(k.streams))
	for c, fs := range k.streams {
		var distinct []int32
		for _, id := range fs.window(0, fs.words(), buf) {
			if counts[id] == 0 {
				distinct = append(distinct, id)
			}
			counts[id]++
		}
		k.wholeAt[c] = make([]int32, len(fs.ids))
		for i, id := range fs.ids {
			k.wholeAt[c][i] = counts[id]
		}
		slices.Sort(distinct)
		k.whole[c] = make([]wholeCount, len(distinct))
		k.once[c], k.twice[c] = make([]uint64, words), make([]uint64, words)
		for i, id := range distinct {
			k.whole[c][i] = wholeCount{feature: id, count: counts[id]}
			k.once[c][id>>6] |= 1 << (id & 63)
			if counts[id] >= 2 {
				k.twice[c][id>>6] |= 1 << (id & 63)
			}
			counts[id] = 0
		}
	}
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
	authors, scores, second, _ = k.predict(rng, docs)
	return authors, scores, second
}

// PredictRanked returns Predict's answers (with the same rng) with every candidate's share of
// wins (candidates: the candidates kept by Fit; a dropped one has no score).
func (k *Koppel) PredictRanked(rng *rand.Rand, docs [][]string) (authors, candidates []string, shares [][]float64) {
	authors, _, _, shares = k.predict(rng, docs)
	return authors, slices.Clone(k.candidates), shares
}

// predict attributes every document: answer, best and runner-up share of wins, and every
// candidate's share.
func (k *Koppel) predict(rng *rand.Rand, docs [][]string) (authors []string, scores, second []float64, shares [][]float64) {
	if k.vocab == nil {
		panic("koppel11: PredictScores before a successful Fit")
	}
	// The stream of rngs.Child, kept as its ChaCha8 source (rngs.ChaCha8: the same values) so
	// the draws skip the interface.
	streams := make([]*rngs.ChaCha8, len(docs))
	for i := range docs {
		streams[i] = rngs.NewChaCha8(rngs.Key(rng.Uint64(), fmt.Sprintf("koppel11/unknown=%d", i)))
	}
	authors = make([]string, len(docs))
	scores = make([]float64, len(docs))
	second = make([]float64, len(docs))
	shares = make([][]float64, len(docs))
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
				best, wins, runnerUp, all := k.attribute(streams[i], docs[i], sc)
				shares[i] = make([]float64, len(all))
				for c, w := range all {
					shares[i][c] = float64(w) / float64(k.opts.Repetitions)
				}
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
	return authors, scores, second, shares
}

// koppelScratch is one worker's reusable state. The per-feature state sits in one slot so a
// feature costs one memory access; stamps mark what is current instead of clearing arrays.
type koppelScratch struct {
	slots  []featureSlot
	window uint32 // stamp of the current candidate window
	perm   []int32
	buf    []int32
	chosen []uint64    // bit f: feature f is in this repetition's subset
	terms  []wholeTerm // the candidates' residual whole-text terms, one candidate after another
	// levels holds, per candidate, three bitsets one after another (see fillLevels).
	levels    []uint64
	inUnknown []uint64 // bit f: feature f occurs in the unknown text
}

// wholeTerm is what one feature of a candidate's whole text adds to its sums when it is
// chosen, beyond what its dense levels count (see residualTerm): x towards Σ a (Σ a² in paper
// mode), y towards Σ min(a, b) (Σ a·b), a its count in the whole text and b in the unknown
// text.
type wholeTerm struct {
	feature int32
	x, y    int64
}

// featureSlot is the state of one feature while one unknown text is attributed.
type featureSlot struct {
	seen    uint32 // == window: count holds this window's count (else it is 0)
	unknown int32  // count in the unknown text
	count   int32  // count in the current window (takeOff: whole-text count minus those taken off)
}

// windowSums are the sums over one repetition's features of a window's counts a and the
// unknown text's counts b: Σ a, Σ min(a, b), Σ a² and Σ a·b (for a whole-text window only the
// pair the mode needs: Σ a and Σ min(a, b), or Σ a² and Σ a·b in paper mode).
type windowSums struct {
	a, min, a2, ab int64
}

func newKoppelScratch(features int) *koppelScratch {
	return &koppelScratch{
		slots:     make([]featureSlot, features),
		perm:      make([]int32, features),
		buf:       make([]int32, 1),
		chosen:    make([]uint64, (features+63)/64),
		inUnknown: make([]uint64, (features+63)/64),
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
// index, its number of wins and the runner-up's.
//
// A window's sums are computed in one of two ways with the same integer results. When the
// words outside the window are few (at most half the window; none when the candidate's text
// has exactly L words, the Fernandes protocol), the candidate's whole-text terms (one per
// feature of its text, see wholeTerm) are summed over the subset with a branch-free bitset
// test, and the occurrences outside the window are taken off one by one. Otherwise the
// window's feature occurrences are counted one by one against the subset's marks. The random
// draws are made in the same order either way: the subset, then one window start per
// candidate, even when only one start exists.
func (k *Koppel) attribute(rng *rngs.ChaCha8, doc []string, sc *koppelScratch) (best, bestWins, secondWins int, wins []int) {
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

	cosine := k.opts.Mode == "paper"
	// whole[c]: candidate c's window sums start from its whole-text sums over the subset
	// (wholeSums), from its dense levels sc.levels[c·3W:(c+1)·3W] and its residual terms
	// terms[termEnd[c-1]:termEnd[c]].
	W := len(sc.chosen)
	clear(sc.inUnknown)
	for _, id := range distinct {
		sc.inUnknown[id>>6] |= 1 << (id & 63)
	}
	whole := make([]bool, len(k.streams))
	termEnd := make([]int, len(k.streams))
	sc.terms = sc.terms[:0]
	sc.levels = slices.Grow(sc.levels[:0], len(k.streams)*3*W)[:len(k.streams)*3*W]
	for c, fs := range k.streams {
		outside := fs.words() - L
		whole[c] = 2*outside <= L
		if whole[c] {
			sc.fillLevels(sc.levels[c*3*W:(c+1)*3*W], k.once[c], k.twice[c], cosine)
			for _, e := range k.whole[c] {
				if t := residualTerm(e, int64(sc.slots[e.feature].unknown), cosine); t.x != 0 || t.y != 0 {
					sc.terms = append(sc.terms, t)
				}
			}
		}
		termEnd[c] = len(sc.terms)
	}

	F := len(sc.perm)
	for i := range sc.perm {
		sc.perm[i] = int32(i)
	}
	m := max(1, int(k.share*float64(F)))
	wins = make([]int, len(k.candidates))
	perm, slots, chosen, terms := sc.perm, sc.slots, sc.chosen, sc.terms
	for rep := range k.opts.Repetitions {
		if rep%16 == 0 && k.opts.Context != nil && k.opts.Context.Err() != nil {
			break
		}
		drawSubset(rng, perm, chosen, m)
		var sumB, sumB2 int64
		for _, f := range distinct {
			b := int64(slots[f].unknown) & -int64(chosen[f>>6]>>(f&63)&1)
			sumB += b
			sumB2 += b * b
		}
		bestSim, bestCand := math.Inf(-1), 0
		lo := 0
		for c, fs := range k.streams {
			start := intN(rng, fs.words()-L+1)
			var s windowSums
			if whole[c] {
				s = wholeSums(sc.levels[c*3*len(chosen):(c+1)*3*len(chosen)], terms[lo:termEnd[c]], chosen, cosine)
				if L < fs.words() {
					s = sc.takeOutside(s, fs, start, L, k.wholeAt[c])
				}
			} else {
				sc.nextWindow()
				s = sc.windowSums(fs.window(start, L, sc.buf))
			}
			lo = termEnd[c]
			sim := s.similarity(sumB, sumB2, cosine)
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
	return best, bestWins, secondWins, wins
}

// The whole-text sums of a candidate over a repetition's subset S are split into dense levels,
// counted by popcounts of bitsets under S, and residual terms, summed one by one under a mask.
// With a the feature's count in the candidate's whole text and b in the unknown text:
//
//	min-max:  a = [a ≥ 1] + [a ≥ 2] + (a − 2)·[a ≥ 3]
//	          min(a, b) = [a ≥ 1 ∧ b ≥ 1] + (min(a, b) − 1)·[a ≥ 1 ∧ b ≥ 2]
//	paper:    a² = [a ≥ 1] + 3·[a ≥ 2] + (a² − 4)·[a ≥ 3]
//	          a·b = a·b (residual only)
//
// On real text most features occur once (18,088 terms of 30 candidates on 209-word SOTU
// snippets: 4,123 occur twice or more, 4,062 in the unknown text), so most of a sum is three
// popcounts per 64 features instead of one masked term per feature. The sums are integers:
// the same values in any order.

// fillLevels writes a candidate's dense levels as three planes of len(once) words: once
// (a ≥ 1), then twice (a ≥ 2), then once ∧ inUnknown (a ≥ 1 ∧ b ≥ 1; zero in paper mode,
// whose Σ a·b is all residual).
func (sc *koppelScratch) fillLevels(levels, once, twice []uint64, cosine bool) {
	w := len(once)
	levels = levels[:3*w]
	copy(levels[:w], once)
	copy(levels[w:2*w], twice[:w])
	shared := levels[2*w : 3*w]
	for i, x := range once {
		shared[i] = 0
		if !cosine {
			shared[i] = x & sc.inUnknown[i]
		}
	}
}

// residualTerm is what the whole-text count e and the unknown text's count b of one feature
// add beyond the dense levels (see fillLevels).
func residualTerm(e wholeCount, b int64, cosine bool) wholeTerm {
	a := int64(e.count)
	t := wholeTerm{feature: e.feature}
	if cosine {
		if a >= 3 {
			t.x = a*a - 4
		}
		t.y = a * b
		return t
	}
	if a >= 3 {
		t.x = a - 2
	}
	if b >= 2 {
		t.y = min(a, b) - 1
	}
	return t
}

// wholeSums sums a candidate's whole text over the chosen features (bit f of chosen): Σ a and
// Σ min(a, b), or Σ a² and Σ a·b when cosine is set, from its dense levels (fillLevels) and
// its residual terms.
func wholeSums(levels []uint64, terms []wholeTerm, chosen []uint64, cosine bool) windowSums {
	w := len(chosen)
	once, twice, shared := maskedPopcounts3(levels[:w], levels[w:2*w], levels[2*w:3*w], chosen)
	var x, y int64
	for _, t := range terms {
		mask := -int64(chosen[t.feature>>6] >> (t.feature & 63) & 1)
		x += t.x & mask
		y += t.y & mask
	}
	if cosine {
		return windowSums{a2: x + int64(once) + 3*int64(twice), ab: y}
	}
	return windowSums{a: x + int64(once) + int64(twice), min: y + int64(shared)}
}

// maskedPopcounts3Go is maskedPopcounts3 one word at a time.
func maskedPopcounts3Go(once, twice, shared, chosen []uint64) (a, b, c int) {
	once, twice, shared = once[:len(chosen)], twice[:len(chosen)], shared[:len(chosen)]
	for i, s := range chosen {
		a += bits.OnesCount64(once[i] & s)
		b += bits.OnesCount64(twice[i] & s)
		c += bits.OnesCount64(shared[i] & s)
	}
	return a, b, c
}

// takeOutside turns the whole-text sums s of the candidate with stream fs into those of its
// window of L words from start by taking off the feature occurrences outside the window
// (wholeAt[i] is the candidate's whole-text count of fs.ids[i]). When the window's or the text's features are
// not a slice of the stream (a joined run of at most koppelN runes) it counts the window
// itself.
func (sc *koppelScratch) takeOutside(s windowSums, fs *featureStream, start, L int, wholeAt []int32) windowSums {
	sc.nextWindow()
	wlo, whi, okWindow := fs.span(start, L)
	alo, ahi, okText := fs.span(0, fs.words())
	if !okWindow || !okText {
		return sc.windowSums(fs.window(start, L, sc.buf))
	}
	s = sc.takeOff(s, fs.ids[alo:wlo], wholeAt[alo:wlo])
	return sc.takeOff(s, fs.ids[whi:ahi], wholeAt[whi:ahi])
}

// takeOff removes the chosen occurrences ids from the sums s, one at a time: a feature's
// count a starts at its whole-text count (wholeAt[i] for ids[i]); removing one occurrence takes 1 off Σ a, 1 off
// Σ min(a, b) when a ≤ b, 2a − 1 off Σ a² and b off Σ a·b. Every occurrence updates its
// feature's count, chosen or not (an unchosen feature's count is never read), and enters the
// sums under a mask: no branch on the random subset, which mispredicts half the time.
func (sc *koppelScratch) takeOff(s windowSums, ids, wholeAt []int32) windowSums {
	for i, id := range ids {
		mask := -int64(sc.chosen[id>>6] >> (id & 63) & 1)
		slot := &sc.slots[id]
		a := slot.count
		if slot.seen != sc.window {
			a = wholeAt[i]
		}
		slot.seen, slot.count = sc.window, a-1
		b := int64(slot.unknown)
		s.a -= 1 & mask
		s.min -= lessOrEqual(int64(a), b) & mask
		s.a2 -= (2*int64(a) - 1) & mask
		s.ab -= b & mask
	}
	return s
}

// windowSums sums a candidate window (its feature ids) against the unknown text over the
// chosen features, in one pass: min(a, b) grows by one whenever a window count below the
// unknown's count is incremented, and a² by 2a + 1. As in takeOff, every occurrence counts
// and the sums take the chosen ones under a mask.
func (sc *koppelScratch) windowSums(ids []int32) windowSums {
	var s windowSums
	for _, id := range ids {
		mask := -int64(sc.chosen[id>>6] >> (id & 63) & 1)
		slot := &sc.slots[id]
		a := slot.count
		if slot.seen != sc.window {
			a = 0
		}
		slot.seen, slot.count = sc.window, a+1
		b := int64(slot.unknown)
		s.a += 1 & mask
		s.min += lessOrEqual(int64(a)+1, b) & mask
		s.a2 += (2*int64(a) + 1) & mask
		s.ab += b & mask
	}
	return s
}

// lessOrEqual is 1 when x ≤ y and 0 otherwise.
func lessOrEqual(x, y int64) int64 {
	var r int64
	if x <= y {
		r = 1
	}
	return r
}

// similarity is the min-max similarity Σ min / Σ max (Σ max = Σ a + Σ b − Σ min; 0 when both
// are empty) or, when cosine is set, a·b / (‖a‖‖b‖) (0 when either is empty), given the
// unknown text's Σ b and Σ b² over the same features.
func (s windowSums) similarity(sumB, sumB2 int64, cosine bool) float64 {
	if cosine {
		if s.a2 == 0 || sumB2 == 0 {
			return 0
		}
		return float64(s.ab) / (math.Sqrt(float64(s.a2)) * math.Sqrt(float64(sumB2)))
	}
	denom := float64(s.a) + float64(sumB) - float64(s.min)
	if denom == 0 {
		return 0
	}
	return float64(s.min) / denom
}

// drawSubset draws the repetition's feature subset by a partial Fisher–Yates shuffle of perm
// (perm[:m] is then a uniform m-subset of the features) and sets its bits in chosen (cleared
// first). Swap i takes the target i + intN(rng, len(perm)−i), the draws taken from the
// stream's unread values of the current period (rngs.ChaCha8.Unread) in a local loop: the same
// values as intN draws, without its load and store of the stream's position per draw. The rare
// draw that Lemire's method may reject (lo < n) is left to intN itself.
func drawSubset(rng *rngs.ChaCha8, perm []int32, chosen []uint64, m int) {
	clear(chosen)
	F := len(perm)
	for i := 0; i < m; {
		buf := rng.Unread()
		if len(buf) == 0 {
			rng.Refill()
			continue
		}
		k := 0
		for ; i < m && k < len(buf); i++ {
			x, n := buf[k], uint64(F-i)
			k++
			var j int
			if n&(n-1) == 0 {
				j = i + int(x&(n-1))
			} else if hi, lo := bits.Mul64(x, n); lo >= n {
				j = i + int(hi)
			} else { // intN redraws x and decides, rejection included
				rng.Skip(k - 1)
				j = i + intN(rng, int(n))
				buf, k = rng.Unread(), 0
			}
			perm[i], perm[j] = perm[j], perm[i]
			f := perm[i]
			chosen[f>>6] |= 1 << (f & 63)
		}
		rng.Skip(k)
	}
}

// intN returns rand.New(src).IntN(n) for n ≥ 1, drawing from src exactly as math/rand/v2 does
// (Lemire's multiply-and-reject on 64-bit draws, a mask for powers of two), without the call
// through the Source interface and, while src's period lasts, without a call per draw.
func intN(src *rngs.ChaCha8, n int) int {
	u := uint64(n)
	x, ok := src.Next()
	if !ok {
		x = src.Uint64()
	}
	if u&(u-1) == 0 {
		return int(x & (u - 1))
	}
	hi, lo := bits.Mul64(x, u)
	if lo < u {
		thresh := -u % u
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), u)
		}
	}
	return int(hi)
}
