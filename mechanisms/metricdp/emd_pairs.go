package metricdp

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"dptext/embeddings"
	"dptext/internal/linalg"
	"dptext/internal/transport"
	"dptext/mechanisms"
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
	total, _ := transport.Match(euclideanCosts(store, a, b), n)
	return total
}

// euclideanCosts returns the Euclidean distances of the vectors of rows a and rows b
// (row-major, len(a) × len(b)), computed once per pair of distinct rows (linalg.Euclidean).
func euclideanCosts(store *embeddings.Store, a, b []int) []float64 {
	da, ia := distinctRows(a)
	db, ib := distinctRows(b)
	vectors := func(rows []int) [][]float32 {
		v := make([][]float32, len(rows))
		for i, r := range rows {
			v[i] = store.Vector(r)
		}
		return v
	}
	// linalg.Euclidean of each pair, bit for bit: the square root of its squared distance.
	table := linalg.SquaredDistanceTable(vectors(da), vectors(db))
	for i, d := range table {
		table[i] = math.Sqrt(d)
	}
	cost := make([]float64, len(a)*len(b))
	for i := range a {
		row := table[ia[i]*len(db):]
		for j := range b {
			cost[i*len(b)+j] = row[ib[j]]
		}
	}
	return cost
}

// bagRows returns the vocabulary rows of original's tokens (in) and of private's (out), in
// their order, with the number of original tokens out of the vocabulary and the largest number
// of in-vocabulary inputs paired with an identical output (a multiset intersection).
func (m *EMD) bagRows(original, private []string) (in, out []int, oov, unchanged int) {
	for _, w := range original {
		if row, ok := m.store.Lookup(w); ok {
			in = append(in, row)
		} else {
			oov++
		}
	}
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
	return in, out, oov, unchanged
}

// diagnoseBag computes Diagnose's counts for order "bag" (see Diagnose): the number of
// out-of-vocabulary and in-vocabulary input tokens, the largest number of in-vocabulary inputs
// paired with an identical output, and the largest total cosine of a pairing of in-vocabulary
// inputs with in-vocabulary outputs. The outputs are taken in ascending row order (the figures
// are of the bag, not of the order it was released in, so releases holding the same words —
// EMD's "keep" and "drop" from shared draws — get the same figures to the last bit), and the
// cosines are computed once per pair of distinct words.
func (m *EMD) diagnoseBag(original, private []string) (oov, inVocab, unchanged int, cosSum float64) {
	in, out, oov, unchanged := m.bagRows(original, private)
	inVocab = len(in)
	// Maximum total cosine = minimum total (1 − cos); unequal sizes are padded with dummy rows
	// or columns of cost 0 that contribute no cosine.
	n := max(len(in), len(out))
	if n == 0 {
		return oov, inVocab, unchanged, 0
	}
	slices.Sort(out)
	return oov, inVocab, unchanged, bagCosines.get(m.store, in, out, func() float64 { return m.maxCosineSum(in, out) })
}

// maxCosineSum is the largest total cosine of a pairing of the rows in with the rows out (each
// used once; the larger list has rows left over).
func (m *EMD) maxCosineSum(in, out []int) (cosSum float64) {
	n := max(len(in), len(out))
	inWords, inIndex := distinctRows(in)
	outWords, outIndex := distinctRows(out)
	cosines := cosineTable(m.store, inWords, outWords)
	cost := make([]float64, n*n)
	for i := range in {
		row := cosines[inIndex[i]*len(outWords):]
		for j := range out {
			cost[i*n+j] = 1 - row[outIndex[j]]
		}
	}
	_, assign := transport.Match(cost, n)
	for i := range in {
		if j := assign[i]; j < len(out) {
			cosSum += cosines[inIndex[i]*len(outWords)+outIndex[j]]
		}
	}
	return cosSum
}

// bagCosines memoises maxCosineSum, a pure function of the vocabulary, the input rows in order
// and the output rows in ascending order: EMD's "keep" and "drop" releases made from shared
// draws (mechanisms.DrawSharer) hold the same in-vocabulary words, so the second asks for the
// figure the first computed.
var bagCosines cosineMemo

// maxCosineMemo bounds the memo: past it, the memo starts afresh (a run asks for each figure
// at most twice, at nearby times).
const maxCosineMemo = 4096

type cosineMemo struct {
	mu   sync.Mutex
	sums map[cosineKey]float64
}

// cosineKey holds the store itself (not its address alone), so that a store cannot be freed and
// another allocated at its address while an entry of it is memoised.
type cosineKey struct {
	store *embeddings.Store
	rows  [sha256.Size]byte
}

// get returns the memoised value of (store, in, out), computing it with compute when absent.
func (c *cosineMemo) get(store *embeddings.Store, in, out []int, compute func() float64) float64 {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(len(in)))
	h.Write(b[:])
	for _, rows := range [][]int{in, out} {
		for _, r := range rows {
			binary.LittleEndian.PutUint64(b[:], uint64(r))
			h.Write(b[:])
		}
	}
	key := cosineKey{store: store}
	h.Sum(key.rows[:0])
	c.mu.Lock()
	v, ok := c.sums[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	if c.sums == nil || len(c.sums) >= maxCosineMemo {
		c.sums = map[cosineKey]float64{}
	}
	c.sums[key] = v
	c.mu.Unlock()
	return v
}

// cosineTable returns the cosines of the vectors of rows a and rows b (row-major, len(a) ×
// len(b)), each equal to linalg.Cosine of the two vectors bit for bit: the same float64 sums in
// the same order, with each vector's squared norm summed once instead of once per pair, and
// the dot products taken sixteen at a time (linalg.DotProducts).
func cosineTable(store *embeddings.Store, a, b []int) []float64 {
	dim := store.Dim()
	widen := func(rows []int) (vecs, sq []float64) {
		vecs, sq = make([]float64, len(rows)*dim), make([]float64, len(rows))
		for k, r := range rows {
			v := vecs[k*dim : (k+1)*dim]
			for i, x := range store.Vector(r) {
				v[i] = float64(x)
				sq[k] += v[i] * v[i]
			}
		}
		return vecs, sq
	}
	va, sa := widen(a)
	vb, sb := widen(b)
	bVectors := make([][]float64, len(b))
	for j := range b {
		bVectors[j] = vb[j*dim : (j+1)*dim]
	}
	products := linalg.NewDotProducts(bVectors, dim)
	out := make([]float64, len(a)*len(b))
	for i := range a {
		dots := products.Of(va[i*dim : (i+1)*dim])
		for j, dot := range dots {
			if sa[i] != 0 && sb[j] != 0 { // else linalg.Cosine's 0 for a zero vector
				out[i*len(b)+j] = dot / math.Sqrt(sa[i]*sb[j])
			}
		}
	}
	return out
}

// distinctRows lists the distinct rows of rows in order of first occurrence, and for every
// position the index of its row in that list.
func distinctRows(rows []int) (distinct, index []int) {
	pos := make(map[int]int, len(rows))
	index = make([]int, len(rows))
	for i, r := range rows {
		k, ok := pos[r]
		if !ok {
			k = len(distinct)
			pos[r] = k
			distinct = append(distinct, r)
		}
		index[i] = k
	}
	return distinct, index
}

// PassedThrough lists the out-of-vocabulary words of doc the "keep" policy releases unchanged,
// in order of first occurrence (none under the other policies).
func (m *EMD) PassedThrough(doc []string) []string {
	return m.passedThrough(doc)
}
