package utility

import (
	"fmt"
	"math"
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
	var sumP, sumR float64
	orders := 0
	for n := 1; n <= c.maxOrder && n <= len(ref); n++ {
		orders++
		if n > len(hyp) {
			continue // no hypothesis n-grams: precision and recall 0 at this order
		}
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
