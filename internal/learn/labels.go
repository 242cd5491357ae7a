package learn

import (
	"fmt"
	"slices"
)

// Labels maps string labels to the integers 0…Len()-1 and back. Classes are numbered in
// sorted (byte-wise lexicographic) order of their names, so the numbering does not depend on
// the order of the training documents.
type Labels struct {
	names []string
	index map[string]int
}

// NewLabels collects the distinct labels of labels, sorted.
func NewLabels(labels []string) *Labels {
	names := slices.Clone(labels)
	slices.Sort(names)
	names = slices.Compact(names)
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	return &Labels{names: names, index: index}
}

// Len is the number of distinct labels.
func (l *Labels) Len() int { return len(l.names) }

// Name returns the label of class i.
func (l *Labels) Name(i int) string { return l.names[i] }

// Names returns all labels in class order. The caller must not modify it.
func (l *Labels) Names() []string { return l.names }

// Index returns the class of label and whether it is known.
func (l *Labels) Index(label string) (int, bool) {
	i, ok := l.index[label]
	return i, ok
}

// Encode returns the class of every label; an unknown label is an error.
func (l *Labels) Encode(labels []string) ([]int, error) {
	out := make([]int, len(labels))
	for k, s := range labels {
		i, ok := l.index[s]
		if !ok {
			return nil, fmt.Errorf("learn: label %q (item %d) was not among the training labels", s, k)
		}
		out[k] = i
	}
	return out, nil
}

// Decode returns the label of every class.
func (l *Labels) Decode(classes []int) []string {
	out := make([]string, len(classes))
	for k, c := range classes {
		out[k] = l.names[c]
	}
	return out
}

// checkTraining validates the shared arguments of the sparse learners' Fit.
func checkTraining(name string, nx, ny int, y []int, classes int) error {
	if nx != ny {
		return fmt.Errorf("%s: %d vectors but %d labels", name, nx, ny)
	}
	if nx == 0 {
		return fmt.Errorf("%s: no training vectors", name)
	}
	if classes < 1 {
		return fmt.Errorf("%s: %d classes, want ≥ 1", name, classes)
	}
	for i, c := range y {
		if c < 0 || c >= classes {
			return fmt.Errorf("%s: label %d of vector %d outside 0…%d", name, c, i, classes-1)
		}
	}
	return nil
}

// argmax returns the index of the largest value, the lowest index on ties.
func argmax(v []float64) int {
	best := 0
	for i := 1; i < len(v); i++ {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}
