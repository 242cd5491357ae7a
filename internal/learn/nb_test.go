package learn

import (
	"math"
	"strings"
	"testing"

	"dptext/internal/rngs"
)

// Class 0: {0:2, 1:1} and {0:1} → N_0 = (3, 1, 0); class 1: {1:1, 2:3} → N_1 = (0, 1, 3).
// With α = 1 and d = 3 the denominators are 4 + 3 = 7 for both classes.
func TestMultinomialNBHandComputed(t *testing.T) {
	X := []Sparse{vec(0, 2, 1, 1), vec(0, 1), vec(1, 1, 2, 3)}
	m, err := NewMultinomialNB(NBOptions{Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Fit(X, []int{0, 0, 1}, 2); err != nil {
		t.Fatal(err)
	}
	x := vec(0, 1, 2, 2)
	got := m.JointLogLikelihood(x)
	want := []float64{
		math.Log(2.0/3) + math.Log(4.0/7) + 2*math.Log(1.0/7),
		math.Log(1.0/3) + math.Log(1.0/7) + 2*math.Log(4.0/7),
	}
	if !closeAll(got, want, 1e-12) {
		t.Fatalf("joint log-likelihood %v, want %v", got, want)
	}
	if m.Predict(x) != 1 || m.Predict(vec(0, 1)) != 0 {
		t.Error("wrong predictions")
	}
}

func TestMultinomialNBEmptyClassAndErrors(t *testing.T) {
	m, _ := NewMultinomialNB(DefaultNBOptions())
	if err := m.Fit([]Sparse{vec(0, 1), vec(1, 1)}, []int{0, 2}, 3); err != nil {
		t.Fatal(err)
	}
	if ll := m.JointLogLikelihood(vec(0, 1)); !math.IsInf(ll[1], -1) {
		t.Errorf("class without vectors scored %v", ll[1])
	}
	if m.Predict(vec(1, 5)) != 2 {
		t.Error("class 2 vector misclassified")
	}
	if err := m.Fit([]Sparse{vec(0, -1)}, []int{0}, 1); err == nil {
		t.Error("negative value accepted")
	}
	if _, err := NewMultinomialNB(NBOptions{Alpha: 0}); err == nil || !strings.Contains(err.Error(), "alpha") {
		t.Errorf("alpha 0: %v", err)
	}
}

func TestMultinomialNBTopics(t *testing.T) {
	train, ytrain := topicSparse(rngs.New(5, "train"), 300, 2000, 4, 40)
	test, ytest := topicSparse(rngs.New(5, "test"), 200, 2000, 4, 40)
	m, _ := NewMultinomialNB(DefaultNBOptions())
	if err := m.Fit(train, ytrain, 4); err != nil {
		t.Fatal(err)
	}
	if acc := accuracy(m.Predict, test, ytest); acc < 0.95 {
		t.Errorf("held-out accuracy %.3f, want ≥ 0.95", acc)
	}
}

func BenchmarkMultinomialNB(b *testing.B) {
	X, y := topicSparse(rngs.New(4, "bench"), 2000, 50000, 4, 300)
	m, _ := NewMultinomialNB(DefaultNBOptions())
	b.Run("fit", func(b *testing.B) {
		for range b.N {
			if err := m.Fit(X, y, 4); err != nil {
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
