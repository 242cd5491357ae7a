package distinguish

import (
	"math"
	"slices"

	"dptext/internal/linalg"
)

// The distinguishers: each scores a release o against the candidates x and x′ (> 0 says x).
const (
	// Overlap (surface): the multiset word overlap of o with x minus that with x′,
	// Σ_w min(c_o(w), c_x(w)) − Σ_w min(c_o(w), c_x′(w)); needs no word positions.
	Overlap = "overlap"
	// Positional (surface): at the positions where x and x′ differ, the number where o has x's
	// word minus the number where it has x′'s (positions past o's end count for neither).
	Positional = "positional"
	// CentredCosine (embedding): cos(m(o) − c, m(x) − c) − cos(m(o) − c, m(x′) − c), m the mean
	// vector of a document's in-vocabulary words and c the mean vector of all the pairs' words.
	CentredCosine = "centred-cosine"
	// PositionalCosine (embedding): at the positions where x and x′ differ, the sum of
	// cos(v(oᵢ), v(xᵢ)) − cos(v(oᵢ), v(x′ᵢ)) over positions where all three words have vectors.
	PositionalCosine = "positional-cosine"
)

// Names lists the distinguishers in the order a tie in selection accuracy is broken.
var Names = []string{Positional, Overlap, PositionalCosine, CentredCosine}

var embeddingNames = map[string]bool{CentredCosine: true, PositionalCosine: true}

// Vectors gives words their vectors (an *embeddings.Store).
type Vectors interface {
	Lookup(w string) (int, bool)
	Vector(i int) []float32
	Dim() int
}

// scorer holds what the distinguishers share: the vectors and their centre.
type scorer struct {
	vec    Vectors
	centre []float64
}

func newScorer(vec Vectors, pairs []Pair) *scorer {
	s := &scorer{vec: vec}
	if vec == nil {
		return s
	}
	s.centre = make([]float64, vec.Dim())
	n := 0
	for _, p := range pairs {
		for _, d := range [][]string{p.X, p.Other} {
			for _, w := range d {
				if i, ok := vec.Lookup(w); ok {
					n++
					for j, v := range vec.Vector(i) {
						s.centre[j] += float64(v)
					}
				}
			}
		}
	}
	for j := range s.centre {
		s.centre[j] /= float64(max(n, 1))
	}
	return s
}

// document is a text with what the distinguishers read of it beyond its words, computed once
// however many scores read it: its word counts (Overlap) and its centred mean vector
// (CentredCosine; nil when none of its words has a vector).
type document struct {
	words  []string
	counts map[string]int
	mean   []float64
}

// document prepares words for the distinguishers names.
func (s *scorer) document(words []string, names []string) document {
	d := document{words: words}
	if slices.Contains(names, Overlap) {
		d.counts = make(map[string]int, len(words))
		for _, w := range words {
			d.counts[w]++
		}
	}
	if slices.Contains(names, CentredCosine) {
		d.mean = s.centred(words)
	}
	return d
}

// score is distinguisher name's score of o between x and xp (NaN, a tie, when it cannot tell:
// no vectors for a document); the documents were prepared for name (scorer.document).
func (s *scorer) score(name string, o, x, xp document) float64 {
	switch name {
	case Overlap:
		return float64(overlap(o.counts, x.counts) - overlap(o.counts, xp.counts))
	case Positional:
		d := 0
		for i := range min(len(o.words), len(x.words), len(xp.words)) {
			if x.words[i] != xp.words[i] {
				if o.words[i] == x.words[i] {
					d++
				} else if o.words[i] == xp.words[i] {
					d--
				}
			}
		}
		return float64(d)
	case CentredCosine:
		if o.mean == nil || x.mean == nil || xp.mean == nil {
			return math.NaN()
		}
		return cosine(o.mean, x.mean) - cosine(o.mean, xp.mean)
	case PositionalCosine:
		d := 0.0
		for i := range min(len(o.words), len(x.words), len(xp.words)) {
			if x.words[i] == xp.words[i] {
				continue
			}
			vo, ok1 := s.vector(o.words[i])
			vx, ok2 := s.vector(x.words[i])
			vxp, ok3 := s.vector(xp.words[i])
			if ok1 && ok2 && ok3 {
				d += linalg.Cosine(vo, vx) - linalg.Cosine(vo, vxp)
			}
		}
		return d
	}
	panic("distinguish: unknown distinguisher " + name) // Options.Check refuses unknown names
}

func (s *scorer) vector(w string) ([]float32, bool) {
	i, ok := s.vec.Lookup(w)
	if !ok {
		return nil, false
	}
	return s.vec.Vector(i), true
}

// centred is m(doc) − c, nil when no word of doc has a vector.
func (s *scorer) centred(doc []string) []float64 {
	m := make([]float64, len(s.centre))
	n := 0
	for _, w := range doc {
		if v, ok := s.vector(w); ok {
			n++
			for j, x := range v {
				m[j] += float64(x)
			}
		}
	}
	if n == 0 {
		return nil
	}
	for j := range m {
		m[j] = m[j]/float64(n) - s.centre[j]
	}
	return m
}

// overlap is the multiset overlap Σ_w min(a(w), b(w)) of two documents' word counts.
func overlap(a, b map[string]int) int {
	if len(b) < len(a) {
		a, b = b, a
	}
	n := 0
	for w, ca := range a {
		n += min(ca, b[w])
	}
	return n
}

// cosine is the cosine of a and b, 0 when either is zero.
func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}
