package learn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"dptext/internal/rngs"
)

func vec(pairs ...float64) Sparse {
	m := map[int32]float64{}
	for i := 0; i < len(pairs); i += 2 {
		m[int32(pairs[i])] = pairs[i+1]
	}
	return SparseFromMap(m)
}

// Two points x = +1 (class 1) and x = −1 (class 0), with the bias feature. By symmetry b = 0
// and the primal is ½w² + 2C·loss(w): with the hinge and C = 1/4 the optimum is w = 2C = 1/2;
// with the squared hinge, w − 4C(1 − w) = 0 gives w = 4C/(1 + 4C) = 4/5 at C = 1.
func TestLinearSVMHandComputed(t *testing.T) {
	X := []Sparse{vec(0, 1), vec(0, -1)}
	y := []int{1, 0}
	for _, c := range []struct {
		loss string
		c, w float64
	}{{"hinge", 0.25, 0.5}, {"squared_hinge", 1, 0.8}} {
		m, err := NewLinearSVM(SVMOptions{C: c.c, Loss: c.loss, MaxIter: 1000, Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Fit(rngs.New(1, "svm"), X, y, 2); err != nil {
			t.Fatal(err)
		}
		w := m.Weights(0)
		if math.Abs(w[0]-c.w) > 1e-9 || math.Abs(w[1]) > 1e-9 {
			t.Errorf("%s C=%v: w=%v b=%v, want w=%v b=0", c.loss, c.c, w[0], w[1], c.w)
		}
		d := m.Decision(vec(0, 2))
		if math.Abs(d[1]-2*c.w) > 1e-9 || d[0] != -d[1] {
			t.Errorf("%s: decision %v", c.loss, d)
		}
	}
}

// Three classes, each owning one feature, plus a shared noisy feature: separable, so every
// training vector is classified right with functional margin ≥ 1 − small for the hinge at
// large C.
func TestLinearSVMSeparable(t *testing.T) {
	X := []Sparse{
		vec(0, 1, 3, 0.2), vec(0, 0.8, 3, 0.5),
		vec(1, 1, 3, 0.1), vec(1, 0.9, 3, 0.7),
		vec(2, 1, 3, 0.3), vec(2, 1.2),
	}
	y := []int{0, 0, 1, 1, 2, 2}
	m, _ := NewLinearSVM(SVMOptions{C: 100, Loss: "hinge", MaxIter: 10000, Tol: 1e-8})
	if err := m.Fit(rngs.New(2, "svm"), X, y, 3); err != nil {
		t.Fatal(err)
	}
	for i, x := range X {
		d := m.Decision(x)
		if p := m.Predict(x); p != y[i] {
			t.Errorf("vector %d predicted %d, want %d (decision %v)", i, p, y[i], d)
		}
		if d[y[i]] < 1-1e-6 {
			t.Errorf("vector %d: own-class margin %v < 1", i, d[y[i]])
		}
	}
	// Unseen vector on class 1's feature only; features past the training dimension ignored.
	if p := m.Predict(vec(1, 1, 50, 9)); p != 1 {
		t.Errorf("new vector predicted %d, want 1", p)
	}
}

func TestLinearSVMTopicsAndDeterminism(t *testing.T) {
	train, ytrain := topicSparse(rngs.New(3, "train"), 300, 2000, 4, 40)
	test, ytest := topicSparse(rngs.New(3, "test"), 200, 2000, 4, 40)
	fit := func() *LinearSVM {
		m, _ := NewLinearSVM(DefaultSVMOptions())
		if err := m.Fit(rngs.New(3, "fit"), train, ytrain, 4); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := fit()
	// Each vector has ~16 of 40 features from its topic's block of 500: easy to separate.
	if acc := accuracy(m.Predict, test, ytest); acc < 0.95 {
		t.Errorf("held-out accuracy %.3f, want ≥ 0.95", acc)
	}
	m2 := fit()
	for k := range 4 {
		if !slices.Equal(m.Weights(k), m2.Weights(k)) {
			t.Fatalf("weights of class %d differ between equal seeds", k)
		}
	}
}

func TestLinearSVMErrors(t *testing.T) {
	bad := map[string]SVMOptions{
		"c":        {C: 0, Loss: "hinge", MaxIter: 1, Tol: 1},
		"loss":     {C: 1, Loss: "log", MaxIter: 1, Tol: 1},
		"max_iter": {C: 1, Loss: "hinge", MaxIter: 0, Tol: 1},
		"tol":      {C: 1, Loss: "hinge", MaxIter: 1, Tol: -1},
	}
	for key, o := range bad {
		if _, err := NewLinearSVM(o); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: error %v does not name the key", key, err)
		}
	}
	m, _ := NewLinearSVM(DefaultSVMOptions())
	rng := rngs.New(1, "x")
	if err := m.Fit(rng, []Sparse{vec(0, 1)}, []int{3}, 2); err == nil {
		t.Error("label outside the classes accepted")
	}
	if err := m.Fit(rng, []Sparse{vec(0, 1)}, []int{0, 1}, 2); err == nil {
		t.Error("length mismatch accepted")
	}
}

// topicSparse draws n l2-normalised count vectors over dim features for the given number of
// topics: each of nnz draws is, with probability 0.4, a feature of the vector's topic block
// (dim/topics consecutive features) and otherwise any feature.
func topicSparse(rng *rand.Rand, n, dim, topics, nnz int) ([]Sparse, []int) {
	block := dim / topics
	X := make([]Sparse, n)
	y := make([]int, n)
	for i := range n {
		y[i] = i % topics
		m := map[int32]float64{}
		for range nnz {
			f := rng.IntN(dim)
			if rng.Float64() < 0.4 {
				f = y[i]*block + rng.IntN(block)
			}
			m[int32(f)]++
		}
		v := SparseFromMap(m)
		X[i] = v.Scaled(1 / v.Norm())
	}
	return X, y
}

// accuracy is the share of the vectors xs whose predicted class is their label.
func accuracy(predict func(Sparse) int, xs []Sparse, labels []int) float64 {
	correct := 0
	for i, x := range xs {
		if predict(x) == labels[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(xs))
}

func BenchmarkLinearSVM(b *testing.B) {
	X, y := topicSparse(rngs.New(4, "bench"), 2000, 50000, 4, 300)
	m, _ := NewLinearSVM(DefaultSVMOptions())
	b.Run("fit", func(b *testing.B) {
		for range b.N {
			if err := m.Fit(rngs.New(4, "fit"), X, y, 4); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("predict", func(b *testing.B) {
		for range b.N {
			for _, x := range X {
				m.Predict(x)
			}
		}
	})
}
