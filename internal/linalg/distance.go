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
