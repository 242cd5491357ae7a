package embeddings

import (
	"slices"
	"testing"
)

func TestFilterAndTopKKeepOrderAndVectors(t *testing.T) {
	s, err := New([]string{"the", "harbour", ",", "ship", "sail"}, 2, []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Filter(func(w string) bool { return w != "the" && w != "," })
	if !slices.Equal(f.Words(), []string{"harbour", "ship", "sail"}) {
		t.Fatalf("words %v", f.Words())
	}
	if i, ok := f.Lookup("ship"); !ok || !slices.Equal(f.Vector(i), []float32{6, 7}) {
		t.Fatalf("ship → row %d %v", i, f.Vector(i))
	}
	if _, ok := f.Lookup("the"); ok {
		t.Fatal("a filtered word is still found")
	}
	if s.Filter(func(string) bool { return true }) != s {
		t.Error("a filter keeping everything should return the store itself")
	}
	top := f.TopK(2)
	if top.Len() != 2 || top.Word(1) != "ship" || f.TopK(0) != f || f.TopK(10) != f {
		t.Errorf("TopK: %v", top.Words())
	}
}
