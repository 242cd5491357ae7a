package learn

import (
	"math"
	"slices"
	"testing"
)

func TestSparseOperations(t *testing.T) {
	a := SparseFromMap(map[int32]float64{5: 2, 1: -1, 3: 0, 9: 4})
	if !slices.Equal(a.Index, []int32{1, 5, 9}) || !slices.Equal(a.Value, []float64{-1, 2, 4}) {
		t.Fatalf("SparseFromMap sorted/dropped wrongly: %+v", a)
	}
	b := Sparse{Index: []int32{0, 5, 9, 12}, Value: []float64{7, 3, -1, 8}}
	if got := a.Dot(b); got != 2*3+4*-1 {
		t.Errorf("Dot = %v, want 2", got)
	}
	if got := b.Dot(a); got != 2 {
		t.Errorf("Dot not symmetric: %v", got)
	}
	if a.Dim() != 10 || b.Dim() != 13 || (Sparse{}).Dim() != 0 || MaxDim([]Sparse{a, b}) != 13 {
		t.Errorf("Dim: %d %d", a.Dim(), b.Dim())
	}
	if got := a.Norm(); math.Abs(got-math.Sqrt(21)) > 1e-15 {
		t.Errorf("Norm = %v", got)
	}
	if a.Sum() != 5 || a.Len() != 3 {
		t.Errorf("Sum %v Len %d", a.Sum(), a.Len())
	}
	w := make([]float64, 10)
	a.AddScaledTo(w, 0.5)
	if !slices.Equal(w, []float64{0, -0.5, 0, 0, 0, 1, 0, 0, 0, 2}) {
		t.Errorf("AddScaledTo: %v", w)
	}
	// Coordinates past the dense length count as zero.
	if got := b.DotDense(w[:10]); got != 3*1+(-1)*2 {
		t.Errorf("DotDense = %v, want 1", got)
	}
	s := a.Scaled(-2)
	if !slices.Equal(s.Value, []float64{2, -4, -8}) || !slices.Equal(a.Value, []float64{-1, 2, 4}) {
		t.Errorf("Scaled: %v (original now %v)", s.Value, a.Value)
	}
}

func TestLabelsSortedAndRoundTrip(t *testing.T) {
	l := NewLabels([]string{"rep", "dem", "rep", "whig"})
	if !slices.Equal(l.Names(), []string{"dem", "rep", "whig"}) || l.Len() != 3 {
		t.Fatalf("names %v", l.Names())
	}
	ys, err := l.Encode([]string{"whig", "dem", "rep"})
	if err != nil || !slices.Equal(ys, []int{2, 0, 1}) {
		t.Fatalf("Encode = %v, %v", ys, err)
	}
	if got := l.Decode(ys); !slices.Equal(got, []string{"whig", "dem", "rep"}) {
		t.Errorf("Decode = %v", got)
	}
	if _, err := l.Encode([]string{"tory"}); err == nil {
		t.Error("unknown label accepted")
	}
	if i, ok := l.Index("rep"); !ok || i != 1 || l.Name(1) != "rep" {
		t.Errorf("Index(rep) = %d, %v", i, ok)
	}
}
