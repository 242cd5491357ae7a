package learn

import (
	"math"
	"slices"
)

// Sparse is a sparse feature vector: Value[i] is the coordinate at Index[i]. Indices are
// strictly increasing; absent coordinates are zero. The zero Sparse is the zero vector.
type Sparse struct {
	Index []int32
	Value []float64
}

// SparseFromMap builds a sparse vector from coordinate → value, dropping zeros.
func SparseFromMap(m map[int32]float64) Sparse {
	idx := make([]int32, 0, len(m))
	for i, v := range m {
		if v != 0 {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	val := make([]float64, len(idx))
	for k, i := range idx {
		val[k] = m[i]
	}
	return Sparse{Index: idx, Value: val}
}

// Len is the number of stored (non-zero) coordinates.
func (s Sparse) Len() int { return len(s.Index) }

// Dim is one more than the largest stored index: the smallest dense length that holds s.
func (s Sparse) Dim() int {
	if len(s.Index) == 0 {
		return 0
	}
	return int(s.Index[len(s.Index)-1]) + 1
}

// Dot is the inner product of two sparse vectors.
func (s Sparse) Dot(t Sparse) float64 {
	var sum float64
	i, j := 0, 0
	for i < len(s.Index) && j < len(t.Index) {
		switch {
		case s.Index[i] < t.Index[j]:
			i++
		case s.Index[i] > t.Index[j]:
			j++
		default:
			sum += s.Value[i] * t.Value[j]
			i++
			j++
		}
	}
	return sum
}

// DotDense is the inner product of s with the dense vector w; coordinates of s at or beyond
// len(w) count as zero.
func (s Sparse) DotDense(w []float64) float64 {
	var sum float64
	for k, i := range s.Index {
		if int(i) >= len(w) {
			break
		}
		sum += s.Value[k] * w[i]
	}
	return sum
}

// AddScaledTo adds a·s to the dense vector w (w must be at least s.Dim() long).
func (s Sparse) AddScaledTo(w []float64, a float64) {
	for k, i := range s.Index {
		w[i] += a * s.Value[k]
	}
}

// SquaredNorm is Σ v² over the stored values.
func (s Sparse) SquaredNorm() float64 {
	var sum float64
	for _, v := range s.Value {
		sum += v * v
	}
	return sum
}

// Norm is the Euclidean norm.
func (s Sparse) Norm() float64 { return math.Sqrt(s.SquaredNorm()) }

// Sum is Σ v over the stored values.
func (s Sparse) Sum() float64 {
	var sum float64
	for _, v := range s.Value {
		sum += v
	}
	return sum
}

// Scaled returns a·s as a new vector (the indices are shared with s, the values are new).
func (s Sparse) Scaled(a float64) Sparse {
	val := make([]float64, len(s.Value))
	for k, v := range s.Value {
		val[k] = a * v
	}
	return Sparse{Index: s.Index, Value: val}
}

// MaxDim is the largest Dim over xs.
func MaxDim(xs []Sparse) int {
	d := 0
	for _, x := range xs {
		d = max(d, x.Dim())
	}
	return d
}
