package metricdp

import (
	"fmt"
	"math"

	"dptext/embeddings"
	"dptext/linalg"
	"dptext/mechanisms"
	"dptext/transport"
)

// PairDistance is the distance of the EMD guarantee between documents x and y (see
// PairBounder): under order "bag" N·E_d(x, y), the minimum over perfect matchings of the summed
// Euclidean distances of matched word vectors; under order "keep" Σᵢ d(xᵢ, yᵢ). Out-of-
// vocabulary words follow the policy: "nearest-known" maps them to their vocabulary word first;
// "drop" removes them (the outputs' lengths then reveal how many there were, so documents with
// different numbers of them are at +Inf); "keep" releases them unchanged, so they must pair
// off with identical words (same multiset for bags, same positions for "keep"), else +Inf.
// Documents whose released lengths differ are at +Inf.
func (m *EMD) PairDistance(x, y []string) float64 {
	if m.opts.Order == mechanisms.OrderKeep {
		return m.positionalDistance(x, y, linalg.Euclidean)
	}
	ax, bx := m.releasedUnits(x)
	ay, by := m.releasedUnits(y)
	if len(ax) != len(ay) {
		return math.Inf(1)
	}
	var rowsX, rowsY []int
	oov := map[string]int{}
	for i, r := range ax {
		if r >= 0 {
			rowsX = append(rowsX, r)
		} else {
			oov[bx[i]]++
		}
	}
	for i, r := range ay {
		if r >= 0 {
			rowsY = append(rowsY, r)
		} else {
			oov[by[i]]--
		}
	}
	for _, c := range oov {
		if c != 0 {
			return math.Inf(1)
		}
	}
	return matchedDistance(m.store, rowsX, rowsY)
}

// PairDistanceKey identifies the store, order and out-of-vocabulary policy.
func (m *EMD) PairDistanceKey() string {
	return fmt.Sprintf("emd/%p/order=%s/oov=%s", m.store, m.opts.Order, m.opts.OOV)
}

// matchedDistance is the minimum-cost perfect matching of two equal-size lists of rows under
// Euclidean word distance (the summed distance, not divided by the size).
func matchedDistance(store *embeddings.Store, a, b []int) float64 {
	n := len(a)
	if n == 0 {
		return 0
	}
	cost := make([]float64, n*n)
	for i, ra := range a {
		va := store.Vector(ra)
		for j, rb := range b {
			cost[i*n+j] = linalg.Euclidean(va, store.Vector(rb))
		}
	}
	total, _ := transport.Match(cost, n)
	return total
}

// diagnoseBag computes Diagnose's counts for order "bag" (see Diagnose): the number of
// out-of-vocabulary and in-vocabulary input tokens, the largest number of in-vocabulary inputs
// paired with an identical output, and the largest total cosine of a pairing of in-vocabulary
// inputs with in-vocabulary outputs.
func (m *EMD) diagnoseBag(original, private []string) (oov, inVocab, unchanged int, cosSum float64) {
	var in, out []int
	for _, w := range original {
		if row, ok := m.store.Lookup(w); ok {
			in = append(in, row)
		} else {
			oov++
		}
	}
	inVocab = len(in)
	left := map[int]int{}
	for _, w := range private {
		if row, ok := m.store.Lookup(w); ok {
			out = append(out, row)
			left[row]++
		}
	}
	for _, r := range in {
		if left[r] > 0 {
			left[r]--
			unchanged++
		}
	}
	// Maximum total cosine = minimum total (1 − cos); unequal sizes are padded with dummy rows
	// or columns of cost 0 that contribute no cosine.
	n := max(len(in), len(out))
	if n == 0 {
		return oov, inVocab, unchanged, 0
	}
	cost := make([]float64, n*n)
	cosines := make([]float64, n*n)
	for i, ri := range in {
		for j, ro := range out {
			c := linalg.Cosine(m.store.Vector(ri), m.store.Vector(ro))
			cosines[i*n+j], cost[i*n+j] = c, 1-c
		}
	}
	_, assign := transport.Match(cost, n)
	for i := range in {
		cosSum += cosines[i*n+assign[i]]
	}
	return oov, inVocab, unchanged, cosSum
}

// PassedThrough lists the out-of-vocabulary words of doc the "keep" policy releases unchanged,
// in order of first occurrence (none under the other policies).
func (m *EMD) PassedThrough(doc []string) []string {
	return m.passedThrough(doc)
}
