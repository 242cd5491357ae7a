package syntf

import (
	"dptext/embeddings"
	"dptext/internal/linalg"
)

// Rating clip settings (SynTFOptions.Clip), which fix the interval of width Δ the rating
// ρ(v, w) = cos(Vec v, Vec w) − s·B(v, w) lies in. Cosines are clamped to [−1, 1] (float32
// rounding) and B ∈ [0, 1], so unclipped ρ ∈ [−1−s, 1]. All documents are adjacent, so the
// sensitivity Δ of the exponential mechanism is the width of that interval.
//
// B is the letter-bigram overlap of Weggenmann and Kerschbaum (2018, Sect. 4.1.2), which the
// paper leaves informal; it is defined here as the Dice coefficient of the bigram multisets,
//
//	B(v, w) = 2·|bg(v) ∩ bg(w)| / (|bg(v)| + |bg(w)|),
//
// bg(x) the len(x)−1 pairs of consecutive runes of x (no boundary padding), ∩ the multiset
// intersection Σ_b min(count_v(b), count_w(b)); when neither word has a bigram (single
// letters), B is 1 for equal words and 0 otherwise. B is symmetric and B(w, w) = 1. The cosine
// of a zero vector with anything is 0. ρ is symmetric, as Theorem 3.4 needs.
const (
	// SynTFClipUnit clips ρ to [0, 1], Δ = 1: the paper's setting (Sect. 3.4 assumes ratings in
	// [0, 1]); every negative rating becomes 0, so all unrelated words are equally likely.
	// Measured on GloVe-100d (top 30,000 words, s = 0.3) it reproduces the paper's ℓ ≈ 25.4
	// at ε = 47.5 (we get 25.6).
	SynTFClipUnit = "unit"
	// SynTFClipNone keeps ρ on [−1−s, 1], Δ = 2 + s: the same ε gives a flatter distribution.
	SynTFClipNone = "none"
)

// synTFRater computes rows of ρ for a fixed vocabulary. It is immutable and safe for
// concurrent use; callers supply their own scratch space.
type synTFRater struct {
	size, dim int
	unit      []float32      // row-normalised vectors, size×dim
	panels    *linalg.Panels // unit packed for linalg.MulAPanelsT
	bigramS   float32        // the factor s
	clipUnit  bool
	// The bigram multiset of a word as a set of features (bigram, occurrence k): the k-th
	// occurrence of a bigram in a word. Multiset intersection sizes are then set
	// intersection sizes, counted through the postings of each feature.
	features [][]int32 // per word: its feature ids
	postings [][]int32 // per feature: the words having it, ascending
	nBigrams []int32   // per word: number of bigrams (runes − 1, at least 0)
}

func newSynTFRater(store *embeddings.Store, s float64, clip string) *synTFRater {
	n, dim := store.Len(), store.Dim()
	r := &synTFRater{size: n, dim: dim, bigramS: float32(s), clipUnit: clip == SynTFClipUnit}
	r.unit = linalg.UnitRows(store.Matrix(), store.Dim())
	r.panels = linalg.PackPanels(r.unit, n, dim)
	type feature struct {
		bigram     string
		occurrence int
	}
	ids := map[feature]int32{}
	r.features = make([][]int32, n)
	r.nBigrams = make([]int32, n)
	for i, w := range store.Words() {
		runes := []rune(w)
		seen := map[string]int{}
		for j := 0; j+1 < len(runes); j++ {
			bg := string(runes[j : j+2])
			seen[bg]++
			key := feature{bg, seen[bg]}
			id, ok := ids[key]
			if !ok {
				id = int32(len(r.postings))
				ids[key] = id
				r.postings = append(r.postings, nil)
			}
			r.features[i] = append(r.features[i], id)
			r.postings[id] = append(r.postings[id], int32(i))
		}
		r.nBigrams[i] = int32(len(r.features[i]))
	}
	return r
}

// bounds returns the interval [lo, hi] ρ lies in; Δ = hi − lo.
func (r *synTFRater) bounds() (lo, hi float64) {
	if r.clipUnit {
		return 0, 1
	}
	return -1 - float64(r.bigramS), 1
}

// sensitivity is Δ, the width of the rating interval.
func (r *synTFRater) sensitivity() float64 {
	lo, hi := r.bounds()
	return hi - lo
}

// synTFScratch is the per-goroutine working memory of rows.
type synTFScratch struct {
	query   []float32
	overlap []int32
}

func (r *synTFRater) newScratch(maxRows int) *synTFScratch {
	return &synTFScratch{query: make([]float32, maxRows*r.dim), overlap: make([]int32, r.size)}
}

// rows sets dst (len(src)×size, row-major) to ρ(src[i], w) for every word w.
func (r *synTFRater) rows(dst []float32, src []int, sc *synTFScratch) {
	b, dim := len(src), r.dim
	q := sc.query[:b*dim]
	for i, v := range src {
		copy(q[i*dim:(i+1)*dim], r.unit[v*dim:(v+1)*dim])
	}
	linalg.MulAPanelsT(dst[:b*r.size], q, b, r.panels)
	lo, hi := r.bounds()
	lo32, hi32 := float32(lo), float32(hi)
	for i, v := range src {
		row := dst[i*r.size : (i+1)*r.size]
		ov := sc.overlap
		clear(ov)
		for _, f := range r.features[v] {
			for _, w := range r.postings[f] {
				ov[w]++
			}
		}
		nv := r.nBigrams[v]
		for w := range row {
			c := min(max(row[w], -1), 1)
			var bgr float32
			if den := nv + r.nBigrams[w]; den > 0 {
				bgr = 2 * float32(ov[w]) / float32(den)
			} else if w == v {
				bgr = 1
			}
			row[w] = min(max(c-r.bigramS*bgr, lo32), hi32)
		}
	}
}
