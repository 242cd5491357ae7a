package attackers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"dptext/internal/learn"
	"dptext/internal/rngs"
)

// realisticKoppelCorpus is a Table-1-sized koppel11 problem: candidates authors with one known
// text each and one unknown text each, every text length words drawn from a Zipf-weighted
// vocabulary of 20,000 random words of 2–11 letters, so that the 20,000 kept features are
// mostly character 4-grams as on real text. When variable is set the known texts are twice
// as long as the unknown ones, so every repetition draws a random window; otherwise known and
// unknown texts have the same length, as in the Fernandes protocol (window = whole text).
func realisticKoppelCorpus(candidates, length int, variable bool) styleCorpus {
	rng := rngs.New(11, "attackers/koppel-bench-corpus")
	vocab := make([]string, 20000)
	for i := range vocab {
		b := make([]byte, 2+rng.IntN(10))
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		vocab[i] = string(b)
	}
	cum := make([]float64, len(vocab))
	var total float64
	for i := range vocab {
		total += 1 / math.Pow(float64(i+1), 1.05)
		cum[i] = total
	}
	draw := func(n int) []string {
		doc := make([]string, n)
		for t := range doc {
			x := rng.Float64() * total
			lo, hi := 0, len(cum)-1
			for lo < hi {
				mid := (lo + hi) / 2
				if cum[mid] < x {
					lo = mid + 1
				} else {
					hi = mid
				}
			}
			doc[t] = vocab[lo]
		}
		return doc
	}
	known := length
	if variable {
		known = 2 * length
	}
	var c styleCorpus
	for a := range candidates {
		name := string(rune('A' + a))
		c.known = append(c.known, draw(known))
		c.knownAuthor = append(c.knownAuthor, name)
		c.unknown = append(c.unknown, draw(length))
		c.unknownAuth = append(c.unknownAuth, name)
	}
	return c
}

// BenchmarkKoppelPredictTable1 times koppel11's prediction at Table 1's sizes: 25 candidates,
// 25 unknown texts of 450 words, 20,000 features, 100 repetitions, one worker. "fixed" has
// known texts as long as the unknown ones (the Fernandes protocol), "dropped" unknown texts 20
// words shorter (as after a mechanism that drops out-of-vocabulary words), "variable" known
// texts twice as long as the unknown ones.
func BenchmarkKoppelPredictTable1(b *testing.B) {
	for _, name := range []string{"fixed", "dropped", "variable"} {
		c := realisticKoppelCorpus(25, 450, name == "variable")
		if name == "dropped" {
			for i := range c.unknown {
				c.unknown[i] = c.unknown[i][:430]
			}
		}
		for _, mode := range []string{"default", "compat", "paper"} {
			b.Run("window="+name+"/mode="+mode, func(b *testing.B) {
				opts := DefaultKoppelOptions()
				opts.Mode = mode
				opts.MinTrainWords = 0
				opts.Workers = 1
				k, err := NewKoppel(opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := k.Fit(nil, c.known, c.knownAuthor); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					k.Predict(rngs.New(1, "p"), c.unknown)
				}
			})
		}
	}
}

// naiveKoppel attributes the unknown texts of a fitted Koppel the slow, literal way: for
// every repetition it draws the subset with rand.Rand's partial Fisher–Yates, then for every
// candidate the window start, counts the window's and the unknown text's features in maps and
// sums the similarity over the subset in float64. It shares only the fitted feature streams
// with the attacker.
func naiveKoppel(k *Koppel, rng *rand.Rand, docs [][]string) (authors []string, scores, second []float64) {
	F := len(k.vocab)
	m := max(1, int(k.share*float64(F)))
	for i, doc := range docs {
		r := rngs.Child(rng, fmt.Sprintf("koppel11/unknown=%d", i))
		words := splitWords(doc)
		L := min(len(words), k.minWords)
		unknown := map[int32]float64{}
		for _, id := range k.stream(words[:L]).window(0, L, make([]int32, 1)) {
			unknown[id]++
		}
		perm := make([]int, F)
		for f := range perm {
			perm[f] = f
		}
		wins := make([]int, len(k.candidates))
		for range k.opts.Repetitions {
			for i := range m {
				j := i + r.IntN(F-i)
				perm[i], perm[j] = perm[j], perm[i]
			}
			chosen := map[int32]bool{}
			for _, f := range perm[:m] {
				chosen[int32(f)] = true
			}
			bestSim, bestCand := math.Inf(-1), 0
			for c, fs := range k.streams {
				start := r.IntN(fs.words() - L + 1)
				window := map[int32]float64{}
				for _, id := range fs.window(start, L, make([]int32, 1)) {
					window[id]++
				}
				var sumMin, sumMax, dot, normA, normB float64
				for f := range chosen {
					a, b := window[f], unknown[f]
					sumMin += min(a, b)
					sumMax += max(a, b)
					dot += a * b
					normA += a * a
					normB += b * b
				}
				var sim float64
				switch {
				case k.opts.Mode == "paper" && normA > 0 && normB > 0:
					sim = dot / (math.Sqrt(normA) * math.Sqrt(normB))
				case k.opts.Mode != "paper" && sumMax > 0:
					sim = sumMin / sumMax
				}
				if sim > bestSim {
					bestSim, bestCand = sim, c
				}
			}
			wins[bestCand]++
		}
		order := make([]int, len(wins))
		for c := range order {
			order[c] = c
		}
		slices.SortStableFunc(order, func(a, b int) int { return wins[b] - wins[a] })
		score := float64(wins[order[0]]) / float64(k.opts.Repetitions)
		scores = append(scores, score)
		authors = append(authors, k.candidates[order[0]])
		if score < k.opts.Threshold {
			authors[i] = learn.NoAnswer
		}
		runnerUp := 0
		if len(order) > 1 {
			runnerUp = wins[order[1]]
		}
		second = append(second, float64(runnerUp)/float64(k.opts.Repetitions))
	}
	return authors, scores, second
}

// The fast paths (whole-text index, interface-free draws) must give exactly the answers,
// scores and runner-up scores of the literal computation, in every mode, with whole-text
// windows, random windows, a mix of both (one candidate longer than the others, unknown
// texts shorter than the shortest candidate), windows a few words short of the whole text,
// and joined windows too short to be a slice of 4-grams.
func TestKoppelMatchesNaiveComputation(t *testing.T) {
	fixed := realisticKoppelCorpus(6, 120, false)
	variable := realisticKoppelCorpus(6, 120, true)
	mixed := realisticKoppelCorpus(6, 120, false)
	mixed.known[2] = append(mixed.known[2], variable.known[2]...)
	mixed.unknown[4] = mixed.unknown[4][:70]
	// dropped: unknown texts a few words shorter than the candidates' (as after a mechanism
	// that drops words), so windows are whole texts minus a few words at either end.
	dropped := realisticKoppelCorpus(6, 120, false)
	for i := range dropped.unknown {
		dropped.unknown[i] = dropped.unknown[i][:100+3*i]
	}
	// short: texts of three words of one or two letters, unknown texts of two, so joined
	// windows hold at most koppelN runes and are looked up whole.
	short := styleCorpus{
		known:       [][]string{{"ab", "c", "d"}, {"a", "bc", "d"}, {"cd", "a", "b"}},
		knownAuthor: []string{"X", "Y", "Z"},
		unknown:     [][]string{{"bc", "d"}, {"a", "b"}, {"ab", "cd"}},
	}
	corpora := map[string]styleCorpus{"fixed": fixed, "variable": variable, "mixed": mixed,
		"dropped": dropped, "short": short}
	for name, c := range corpora {
		for _, mode := range []string{"default", "compat", "paper"} {
			opts := DefaultKoppelOptions()
			opts.Mode = mode
			opts.MinTrainWords = 0
			opts.Features = 3000
			opts.Repetitions = 20
			k, err := NewKoppel(opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := k.Fit(nil, c.known, c.knownAuthor); err != nil {
				t.Fatal(err)
			}
			a, s, s2 := k.PredictTopTwo(rngs.New(3, "p"), c.unknown)
			na, ns, ns2 := naiveKoppel(k, rngs.New(3, "p"), c.unknown)
			if !slices.Equal(a, na) || !slices.Equal(s, ns) || !slices.Equal(s2, ns2) {
				t.Errorf("%s/%s: fast %v %v %v\nnaive %v %v %v", name, mode, a, s, s2, na, ns, ns2)
			}
		}
	}
}

// intN on rngs.ChaCha8 must reproduce rand.Rand.IntN on math/rand/v2's ChaCha8 draw for draw,
// across the generator's periods: powers of two, 1, small and huge bounds (a bound near 2⁶³
// makes the rejection loop run often, so some draws take a period's last value and the next
// period's first).
func TestIntNMatchesRandIntN(t *testing.T) {
	key := rngs.Key(1, "intn")
	src := rngs.NewChaCha8(key)
	ref := rand.New(rand.NewChaCha8(key))
	bounds := []int{1, 2, 3, 7, 64, 1000, 20000, 1<<31 - 1, 1 << 40, 3 << 61, math.MaxInt}
	for i := range 200000 {
		n := bounds[i%len(bounds)]
		if got, want := intN(src, n), ref.IntN(n); got != want {
			t.Fatalf("draw %d, n = %d: intN %d, rand.IntN %d", i, n, got, want)
		}
	}
}

// drawSubset must leave perm, chosen and the stream exactly as the plain partial Fisher–Yates
// with intN does: subsets of 1 to all features, feature counts that are and are not powers of
// two (intN masks for those), repetitions that cross the stream's periods (124 values) at every
// offset, and the draw after the subset (the stream's position). Mutants: a draw taken twice
// (k not advanced), a value skipped at the end of a block, a modulus for the power-of-two mask:
// each fails.
func TestDrawSubsetIsThePlainShuffle(t *testing.T) {
	for _, F := range []int{1, 5, 64, 200, 4096, 20000} {
		key := rngs.Key(2, fmt.Sprintf("subset/%d", F))
		got, want := rngs.NewChaCha8(key), rngs.NewChaCha8(key)
		permGot, permWant := make([]int32, F), make([]int32, F)
		for i := range F {
			permGot[i], permWant[i] = int32(i), int32(i)
		}
		words := (F + 63) / 64
		chosenGot, chosenWant := make([]uint64, words), make([]uint64, words)
		for rep, m := range []int{1, F / 2, F, max(1, F/3), 7 % F} {
			m = max(1, m)
			drawSubset(got, permGot, chosenGot, m)
			clear(chosenWant)
			for i := range m {
				j := i + intN(want, F-i)
				permWant[i], permWant[j] = permWant[j], permWant[i]
				f := permWant[i]
				chosenWant[f>>6] |= 1 << (f & 63)
			}
			if !slices.Equal(permGot, permWant) || !slices.Equal(chosenGot, chosenWant) {
				t.Fatalf("F = %d, repetition %d (m = %d): the subset differs from the plain shuffle's", F, rep, m)
			}
			if g, w := got.Uint64(), want.Uint64(); g != w {
				t.Fatalf("F = %d, repetition %d: the stream after the subset is at another position", F, rep)
			}
		}
	}
}
