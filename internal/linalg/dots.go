package linalg

// DotProducts holds float64 vectors of one length for the dot products of other vectors with
// all of them: sixteen to a group, laid out by dimension, as Dots16 reads them.
type DotProducts struct {
	vectors     [][]float64 // nil: a zero vector
	dim         int
	byDimension []float64 // group g: byDimension[g·16·dim + 16t + c] is dimension t of vector 16g + c
	dots        []float64
}

// NewDotProducts lays out vectors (each of length dim, or nil for a zero vector whose dot
// products the caller does not read).
func NewDotProducts(vectors [][]float64, dim int) *DotProducts {
	groups := (len(vectors) + 15) / 16
	d := &DotProducts{vectors: vectors, dim: dim, byDimension: make([]float64, groups*16*dim), dots: make([]float64, groups*16)}
	for j, v := range vectors {
		group := d.byDimension[j/16*16*dim:]
		for t, x := range v[:len(v):len(v)] {
			group[16*t+j%16] = x
		}
	}
	return d
}

// Of returns the dot products of x (length dim) with every vector, each Σ_t x[t]·v[t] summed in
// order of t from 0 with one rounding per product and per sum: sixteen per call of Dots16 where
// the CPU allows, the plain loop elsewhere (the same bits). The slice is valid until the next
// call.
func (d *DotProducts) Of(x []float64) []float64 {
	for g := range len(d.dots) / 16 {
		if Dots16((*[16]float64)(d.dots[16*g:16*g+16]), x, d.byDimension[g*16*d.dim:(g+1)*16*d.dim]) {
			continue
		}
		for j := 16 * g; j < min(16*g+16, len(d.vectors)); j++ {
			v, s := d.vectors[j], 0.0
			if v != nil {
				v = v[:len(x)]
				for t, xt := range x {
					s += xt * v[t]
				}
			}
			d.dots[j] = s
		}
	}
	return d.dots[:len(d.vectors)]
}
