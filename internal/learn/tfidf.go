package learn

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"dptext/internal/strindex"
)

// TfidfOptions configure a Tfidf weighting.
type TfidfOptions struct {
	// SublinearTF replaces a raw count c by 1 + ln c.
	SublinearTF bool `toml:"sublinear_tf"`
	// MinDF drops features found in fewer than MinDF training documents (≥ 1).
	MinDF int `toml:"min_df"`
	// MaxFeatures keeps only the MaxFeatures features with the largest total count over the
	// training documents (ties: the feature seen first wins); 0 keeps all.
	MaxFeatures int `toml:"max_features"`
	// Norm is "l2" (every transformed vector scaled to unit Euclidean length) or "none".
	Norm string `toml:"norm"`
}

// DefaultTfidfOptions are raw counts, min_df 1, every feature, l2 norm (scikit-learn's
// TfidfVectorizer defaults).
func DefaultTfidfOptions() TfidfOptions {
	return TfidfOptions{MinDF: 1, Norm: "l2"}
}

// Tfidf turns a document — any list of string features, such as words or character n-grams —
// into a sparse tf-idf vector. The weight of feature t in document d is
//
//	tf(t, d) · idf(t),  idf(t) = ln((1 + n) / (1 + df(t))) + 1,
//
// with tf the raw count (or 1 + ln count when sublinear), n the number of training documents
// and df(t) the number of them containing t (the smoothed idf of scikit-learn). Feature
// indices follow the byte-wise lexicographic order of the kept features, so equal training
// sets give equal indices whatever the document order.
type Tfidf struct {
	opts     TfidfOptions
	index    *strindex.Index
	features []string
	idf      []float64
	// counting holds *featureCounts sized for the fitted features, one per concurrent Transform.
	counting sync.Pool
}

// featureCounts counts one document's features by index: counts[i] for feature i, and bit i of
// present once it occurs. Transform leaves it zeroed.
type featureCounts struct {
	counts  []int32
	present []uint64
}

// NewTfidf validates opts and returns an unfitted weighting.
func NewTfidf(opts TfidfOptions) (*Tfidf, error) {
	if opts.MinDF < 1 {
		return nil, fmt.Errorf("tfidf: min_df = %d: want ≥ 1", opts.MinDF)
	}
	if opts.MaxFeatures < 0 {
		return nil, fmt.Errorf("tfidf: max_features = %d: want ≥ 0 (0 keeps all)", opts.MaxFeatures)
	}
	if opts.Norm != "l2" && opts.Norm != "none" {
		return nil, fmt.Errorf("tfidf: norm = %q: want \"l2\" or \"none\"", opts.Norm)
	}
	return &Tfidf{opts: opts}, nil
}

// Fit learns the features and their idf from the training documents, replacing any earlier fit.
func (t *Tfidf) Fit(docs [][]string) error {
	type stat struct {
		df, total, lastDoc int
	}
	stats := map[string]*stat{}
	var order []string // features in order of first occurrence
	for d, doc := range docs {
		for _, f := range doc {
			s := stats[f]
			if s == nil {
				s = &stat{lastDoc: -1}
				stats[f] = s
				order = append(order, f)
			}
			s.total++
			if s.lastDoc != d {
				s.lastDoc = d
				s.df++
			}
		}
	}
	kept := make([]string, 0, len(order))
	for _, f := range order {
		if stats[f].df >= t.opts.MinDF {
			kept = append(kept, f)
		}
	}
	if t.opts.MaxFeatures > 0 && len(kept) > t.opts.MaxFeatures {
		slices.SortStableFunc(kept, func(a, b string) int { return stats[b].total - stats[a].total })
		kept = kept[:t.opts.MaxFeatures]
	}
	if len(kept) == 0 {
		return fmt.Errorf("tfidf: no feature occurs in at least min_df = %d of the %d training documents",
			t.opts.MinDF, len(docs))
	}
	slices.SortFunc(kept, strings.Compare)
	n := float64(len(docs))
	t.features = kept
	t.counting = sync.Pool{New: func() any {
		return &featureCounts{counts: make([]int32, len(kept)), present: make([]uint64, (len(kept)+63)/64)}
	}}
	t.index = strindex.New(len(kept))
	t.idf = make([]float64, len(kept))
	for i, f := range kept {
		t.index.Set(f, int32(i))
		t.idf[i] = math.Log((1+n)/(1+float64(stats[f].df))) + 1
	}
	return nil
}

// Len is the number of features (the dimension of transformed vectors).
func (t *Tfidf) Len() int { return len(t.features) }

// Feature returns the string feature of index i.
func (t *Tfidf) Feature(i int) string { return t.features[i] }

// IDF returns the idf weight of index i.
func (t *Tfidf) IDF(i int) float64 { return t.idf[i] }

// Transform weights one document; features not seen in training are ignored. A document with
// no known feature is the zero vector.
func (t *Tfidf) Transform(doc []string) Sparse {
	// Count by index, then read the present features in increasing index from the bitset.
	fc, fitted := t.counting.Get().(*featureCounts)
	if !fitted {
		return Sparse{} // no features yet: every document is the zero vector
	}
	lo, hi := len(fc.present), -1 // the words of present that hold a bit
	for _, f := range doc {
		if i, ok := t.index.Get(f); ok {
			if fc.counts[i] == 0 {
				fc.present[i>>6] |= 1 << (i & 63)
				lo, hi = min(lo, int(i>>6)), max(hi, int(i>>6))
			}
			fc.counts[i]++
		}
	}
	var v Sparse
	for w := lo; w <= hi; w++ {
		for b := fc.present[w]; b != 0; b &= b - 1 {
			i := int32(w<<6 + bits.TrailingZeros64(b))
			v.Index = append(v.Index, i)
			v.Value = append(v.Value, float64(fc.counts[i]))
			fc.counts[i] = 0
		}
		fc.present[w] = 0
	}
	t.counting.Put(fc)
	return t.weigh(v)
}

// weigh turns the raw counts of v into tf-idf weights, scaled to unit length under the l2 norm.
func (t *Tfidf) weigh(v Sparse) Sparse {
	for k, i := range v.Index {
		tf := v.Value[k]
		if t.opts.SublinearTF {
			tf = 1 + math.Log(tf)
		}
		v.Value[k] = tf * t.idf[i]
	}
	if t.opts.Norm == "l2" {
		if norm := v.Norm(); norm > 0 {
			for k := range v.Value {
				v.Value[k] /= norm
			}
		}
	}
	return v
}

// TransformAll weights every document.
func (t *Tfidf) TransformAll(docs [][]string) []Sparse {
	out := make([]Sparse, len(docs))
	for i, d := range docs {
		out[i] = t.Transform(d)
	}
	return out
}
