package linalg

import "math"

// Euclidean is the float64 Euclidean distance of two float32 vectors of equal length.
func Euclidean(a, b []float32) float64 {
	s := 0.0
	for i, x := range a {
		d := float64(x) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// SquaredEuclidean is the float64 squared distance of two float32 vectors of equal length.
func SquaredEuclidean(a, b []float32) float64 {
	s := 0.0
	for i, x := range a {
		d := float64(x) - float64(b[i])
		s += d * d
	}
	return s
}

// Cosine is the float64 cosine similarity of two float32 vectors of equal length (0 if either
// is zero).
func Cosine(a, b []float32) float64 {
	dot, na, nb := 0.0, 0.0, 0.0
	for i, x := range a {
		y := float64(b[i])
		dot += float64(x) * y
		na += float64(x) * float64(x)
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Euclidean64 is the Euclidean distance of a float64 and a float32 vector of equal length (for
// example the length of the noise added to x to make z).
func Euclidean64(z []float64, x []float32) float64 {
	s := 0.0
	for i, v := range z {
		d := v - float64(x[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// SquaredDistanceTable returns the float64 squared distances of every vector of a to every
// vector of b, row-major (len(a) × len(b)); all vectors have one length. Each equals
// SquaredEuclidean(a[i], b[j]) bit for bit: four vectors of a meet four of b per call of
// SqDist4x4 where the CPU allows, and the rest go one pair at a time.
func SquaredDistanceTable(a, b [][]float32) []float64 {
	out := make([]float64, len(a)*len(b))
	var q []float64
	var dst [16]float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		k := len(a[i])
		q = append(q[:0], make([]float64, 4*k)...)
		for c := range 4 {
			for t, x := range a[i+c][:k] {
				q[4*t+c] = float64(x)
			}
		}
		j := 0
		for ; j+4 <= len(b); j += 4 {
			rows := [4][]float32{b[j][:k], b[j+1][:k], b[j+2][:k], b[j+3][:k]}
			if !SqDist4x4(&dst, q, &rows) {
				break // no kernel: the rest one pair at a time
			}
			for r := range 4 {
				for c := range 4 {
					out[(i+c)*len(b)+j+r] = dst[4*r+c]
				}
			}
		}
		for ; j < len(b); j++ {
			for c := range 4 {
				out[(i+c)*len(b)+j] = SquaredEuclidean(a[i+c], b[j])
			}
		}
	}
	for ; i < len(a); i++ {
		for j := range b {
			out[i*len(b)+j] = SquaredEuclidean(a[i], b[j])
		}
	}
	return out
}
