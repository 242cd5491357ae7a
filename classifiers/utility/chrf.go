package utility

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// ChrF is the character n-gram F-score of Popović (WMT 2015) of the release (hypothesis)
// against the original (reference) (scorer chrf). The words of each document are joined with
// no separator (whitespace is not a character of the score, as in the reference
// implementations), so n-grams span word boundaries and a reordered release loses the
// n-grams that crossed its changed boundaries. For each order n = 1…MaxOrder, with clipped
// matches m_n = Σ_g min(count_hyp(g), count_ref(g)):
//
//	chrP = mean_n m_n / |hyp n-grams|,  chrR = mean_n m_n / |ref n-grams|
//	chrF_β = (1 + β²)·chrP·chrR / (β²·chrP + chrR)
//
// averaged over the orders at which the original has n-grams (an order at which the release
// has none counts as precision 0). β = 2 weighs recall twice as much as precision, the
// paper's best-correlating choice. The score lies in [0, 1] (not in percent), 1 for an
// identical text, and is NaN when the original is empty.
type ChrF struct {
	maxOrder int
	beta     float64
}

// ChrFOptions configure ChrF.
type ChrFOptions struct {
	// MaxOrder is the longest character n-gram (default 6, Popović 2015).
	MaxOrder int `toml:"max_order"`
	// Beta weighs recall β times as much as precision (default 2).
	Beta float64 `toml:"beta"`
}

// DefaultChrFOptions: chrF with n ≤ 6 and β = 2 (the paper's chrF2).
func DefaultChrFOptions() ChrFOptions { return ChrFOptions{MaxOrder: 6, Beta: 2} }

// NewChrF returns chrF with the given options.
func NewChrF(opts ChrFOptions) (*ChrF, error) {
	if opts.MaxOrder < 1 || opts.MaxOrder > 20 {
		return nil, fmt.Errorf("chrf: max_order = %d: want an integer in [1, 20]", opts.MaxOrder)
	}
	if !(opts.Beta > 0) || math.IsInf(opts.Beta, 0) {
		return nil, fmt.Errorf("chrf: beta = %v: want a finite number > 0", opts.Beta)
	}
	return &ChrF{maxOrder: opts.MaxOrder, beta: opts.Beta}, nil
}

// Measure returns chrF_β(private against original).
func (c *ChrF) Measure(original, private []string) float64 {
	ref := []rune(strings.Join(original, ""))
	hyp := []rune(strings.Join(private, ""))
	refCodes, hypCodes, width := runeCodes(ref, hyp)
	var table ngramTable
	var sumP, sumR float64
	orders := 0
	for n := 1; n <= c.maxOrder && n <= len(ref); n++ {
		orders++
		if n > len(hyp) {
			continue // no hypothesis n-grams: precision and recall 0 at this order
		}
		var matches int
		if width*n <= 64 {
			matches = table.matches(refCodes, hypCodes, n, width)
		} else {
			matches = stringMatches(ref, hyp, n)
		}
		sumP += float64(matches) / float64(len(hyp)-n+1)
		sumR += float64(matches) / float64(len(ref)-n+1)
	}
	if orders == 0 {
		return math.NaN()
	}
	p, r := sumP/float64(orders), sumR/float64(orders)
	b2 := c.beta * c.beta
	if p == 0 && r == 0 {
		return 0
	}
	return (1 + b2) * p * r / (b2*p + r)
}

// runeCodes numbers the distinct runes of ref and hyp 0, 1, … in order of first appearance and
// returns both texts as codes, with the number of bits a code needs (at least 1). An n-gram
// of codes then packs into width·n bits, one key per distinct n-gram.
func runeCodes(ref, hyp []rune) (refCodes, hypCodes []uint64, width int) {
	var ascii [128]int32
	for i := range ascii {
		ascii[i] = -1
	}
	other := map[rune]int32{}
	next := int32(0)
	code := func(r rune) uint64 {
		if r >= 0 && r < 128 {
			if ascii[r] < 0 {
				ascii[r], next = next, next+1
			}
			return uint64(ascii[r])
		}
		c, ok := other[r]
		if !ok {
			c, next = next, next+1
			other[r] = c
		}
		return uint64(c)
	}
	refCodes, hypCodes = make([]uint64, len(ref)), make([]uint64, len(hyp))
	for i, r := range ref {
		refCodes[i] = code(r)
	}
	for i, r := range hyp {
		hypCodes[i] = code(r)
	}
	return refCodes, hypCodes, max(1, bits.Len32(uint32(max(0, next-1))))
}

// stringMatches is the clipped match count Σ_g min(count_hyp(g), count_ref(g)) over the
// n-grams g, counted with the n-grams as strings: for orders whose packed keys would need more
// than 64 bits (texts of many distinct characters).
func stringMatches(ref, hyp []rune, n int) int {
	refCounts := map[string]int{}
	for i := 0; i+n <= len(ref); i++ {
		refCounts[string(ref[i:i+n])]++
	}
	matches := 0
	for i := 0; i+n <= len(hyp); i++ {
		g := string(hyp[i : i+n])
		if refCounts[g] > 0 {
			refCounts[g]--
			matches++
		}
	}
	return matches
}

// ngramTable counts packed n-gram keys in an open-addressing hash table (linear probing). A
// slot is in use when its stamp is the table's, so a new count starts without clearing it.
type ngramTable struct {
	keys   []uint64
	counts []int32
	stamps []uint32
	stamp  uint32
	shift  uint // 64 − log2(len(keys))
}

// matches is the clipped match count Σ_g min(count_hyp(g), count_ref(g)) over the n-grams g of
// the code sequences ref and hyp, each n-gram packed into n·width ≤ 64 bits (distinct n-grams
// get distinct keys).
func (t *ngramTable) matches(ref, hyp []uint64, n, width int) int {
	t.start(len(ref) - n + 1)
	mask := ^uint64(0)
	if n*width < 64 {
		mask = 1<<(n*width) - 1
	}
	var key uint64
	for i, c := range ref {
		key = (key<<width | c) & mask
		if i >= n-1 {
			j := t.slot(key)
			if t.stamps[j] != t.stamp {
				t.stamps[j], t.keys[j], t.counts[j] = t.stamp, key, 0
			}
			t.counts[j]++
		}
	}
	matches := 0
	key = 0
	for i, c := range hyp {
		key = (key<<width | c) & mask
		if i >= n-1 {
			if j := t.slot(key); t.stamps[j] == t.stamp && t.counts[j] > 0 {
				t.counts[j]--
				matches++
			}
		}
	}
	return matches
}

// start empties the table for up to n distinct keys (at most half full).
func (t *ngramTable) start(n int) {
	if size := 1 << bits.Len(uint(2*n)); size > len(t.keys) {
		t.keys, t.counts, t.stamps = make([]uint64, size), make([]int32, size), make([]uint32, size)
		t.shift = uint(64 - bits.TrailingZeros(uint(size)))
		t.stamp = 0
	}
	t.stamp++
	if t.stamp == 0 {
		clear(t.stamps)
		t.stamp = 1
	}
}

// slot is the slot that holds key, or the empty slot where it would go.
func (t *ngramTable) slot(key uint64) int {
	last := len(t.keys) - 1
	j := int((key * 0x9E3779B97F4A7C15) >> t.shift)
	for t.stamps[j] == t.stamp && t.keys[j] != key {
		j = (j + 1) & last
	}
	return j
}
