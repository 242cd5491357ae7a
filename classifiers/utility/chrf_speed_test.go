package utility

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// chrFReference is chrF computed the plain way, kept as the reference for Measure: every
// n-gram a string, counted in a map, the reference's counts taken down by each hypothesis
// n-gram they still hold.
func chrFReference(maxOrder int, beta float64, original, private []string) float64 {
	ref := []rune(strings.Join(original, ""))
	hyp := []rune(strings.Join(private, ""))
	var sumP, sumR float64
	orders := 0
	for n := 1; n <= maxOrder && n <= len(ref); n++ {
		orders++
		if n > len(hyp) {
			continue
		}
		refCounts := map[string]int{}
		for i := 0; i+n <= len(ref); i++ {
			refCounts[string(ref[i:i+n])]++
		}
		matches := 0
		for i := 0; i+n <= len(hyp); i++ {
			if g := string(hyp[i : i+n]); refCounts[g] > 0 {
				refCounts[g]--
				matches++
			}
		}
		sumP += float64(matches) / float64(len(hyp)-n+1)
		sumR += float64(matches) / float64(len(ref)-n+1)
	}
	if orders == 0 {
		return math.NaN()
	}
	p, r := sumP/float64(orders), sumR/float64(orders)
	if p == 0 && r == 0 {
		return 0
	}
	return (1 + beta*beta) * p * r / (beta*beta*p + r)
}

// chrFPair draws an original of n words from a vocabulary of words over the given alphabet and
// a release that keeps each word with probability keep and otherwise draws another.
func chrFPair(rng *rand.Rand, alphabet []rune, vocabulary, n int, keep float64) (original, private []string) {
	vocab := make([]string, vocabulary)
	for i := range vocab {
		w := make([]rune, 1+rng.IntN(9))
		for j := range w {
			w[j] = alphabet[rng.IntN(len(alphabet))]
		}
		vocab[i] = string(w)
	}
	for range n {
		w := vocab[int(float64(vocabulary)*rng.Float64()*rng.Float64())] // skewed towards the first words
		original = append(original, w)
		if rng.Float64() < keep {
			private = append(private, w)
		} else {
			private = append(private, vocab[rng.IntN(vocabulary)])
		}
	}
	return original, private
}

// Measure packs n-grams into integer keys where they fit in 64 bits and falls back to strings
// where they do not (many distinct characters, high orders); both must give the reference's
// score to the last bit. The texts cover ASCII (5-bit codes: keys for n ≤ 12), a 3,000-rune
// alphabet (12-bit codes: strings from n = 6), one-character texts and empty releases, at
// orders up to 20.
func TestChrFEqualsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ascii := []rune("abcdefghijklmnopqrstuvwxyz")
	var wide []rune
	for r := rune(0x4e00); len(wide) < 3000; r++ {
		wide = append(wide, r)
	}
	mixed := append(append([]rune{}, ascii...), 'é', 'ß', '—')
	for _, maxOrder := range []int{1, 6, 13, 20} {
		c, err := NewChrF(ChrFOptions{MaxOrder: maxOrder, Beta: 2})
		if err != nil {
			t.Fatal(err)
		}
		for trial := range 60 {
			alphabet := [][]rune{ascii, wide, mixed}[trial%3]
			original, private := chrFPair(rng, alphabet, 5+rng.IntN(300), rng.IntN(80), []float64{0, 0.5, 0.9, 1}[trial%4])
			if trial%10 == 9 {
				private = nil
			}
			got, want := c.Measure(original, private), chrFReference(maxOrder, 2, original, private)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("max order %d, trial %d: Measure %v, reference %v\noriginal %q\nprivate %q", maxOrder, trial, got, want, original, private)
			}
		}
	}
}

// BenchmarkChrF scores 420 pairs of 209-word texts (the size of configs/mechanisms.toml's
// items) with Measure and with the string-keyed reference.
func BenchmarkChrF(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var originals, privates [][]string
	for range 420 {
		o, p := chrFPair(rng, []rune("abcdefghijklmnopqrstuvwxyz"), 3000, 209, 0.6)
		originals, privates = append(originals, o), append(privates, p)
	}
	c, _ := NewChrF(DefaultChrFOptions())
	b.Run("packed", func(b *testing.B) {
		for b.Loop() {
			for i := range originals {
				c.Measure(originals[i], privates[i])
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			for i := range originals {
				chrFReference(6, 2, originals[i], privates[i])
			}
		}
	})
}
