package attackers

import (
	"math"
	"strings"
	"testing"

	"dptext/internal/rngs"
)

// Platt's fit has a closed form on two points of decision value −1 (negatives) and +1
// (positives), n of each: the sigmoid reproduces the smoothed targets exactly, so
// 1/(1+e^{A+B}) = (n+1)/(n+2) and 1/(1+e^{−A+B}) = 1/(n+2), i.e. B = 0 and A = −ln(n+1).
// A sign error in the gradient or Hessian gives another A (or no convergence).
func TestPlattSigmoidClosedForm(t *testing.T) {
	for _, n := range []int{1, 3, 10, 100} {
		var f []float64
		var target []bool
		for i := 0; i < n; i++ {
			f, target = append(f, -1, 1), append(target, false, true)
		}
		a, b := plattSigmoid(f, target)
		if want := -math.Log(float64(n + 1)); math.Abs(a-want) > 1e-4 || math.Abs(b) > 1e-4 {
			t.Errorf("n = %d: A, B = %v, %v; want %v, 0", n, a, b, want)
		}
	}
}

// Calibrated probabilities are probabilities (in [0, 1], summing to 1 per text), favour the
// true candidate on texts close to its known ones, and are nearly uniform on a text of words
// no candidate used. Raw decision values, which the old margin rule compared with 0.1, are
// none of this (they are negative for most candidates).
func TestCalibratedProbabilities(t *testing.T) {
	style := func(author string, seed int) []string {
		rng := rngs.New(uint64(seed), author)
		var w []string
		for i := 0; i < 200; i++ {
			w = append(w, author+string(rune('a'+rng.IntN(6))))
		}
		return []string{strings.Join(w, " ")}
	}
	var docs [][]string
	var labels []string
	for _, a := range []string{"xq", "zv", "kj"} {
		for s := 0; s < 4; s++ {
			docs, labels = append(docs, style(a, s)), append(labels, a)
		}
	}
	c, err := NewCharNgram(DefaultCharNgramOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Fit(rngs.New(1, "fit"), docs, labels); err != nil {
		t.Fatal(err)
	}
	if err := c.CalibrateFit(rngs.New(1, "cal"), docs, labels); err != nil {
		t.Fatal(err)
	}
	probe := [][]string{style("zv", 99), {"mmmm nnnn oooo"}}
	p, err := c.Probabilities(probe)
	if err != nil {
		t.Fatal(err)
	}
	names := c.Candidates()
	for i, row := range p {
		sum := 0.0
		for _, v := range row {
			if v < 0 || v > 1 {
				t.Errorf("text %d: probability %v outside [0, 1]", i, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("text %d: probabilities sum to %v", i, sum)
		}
	}
	best := 0
	for k := range p[0] {
		if p[0][k] > p[0][best] {
			best = k
		}
	}
	if names[best] != "zv" || p[0][best] < 0.5 {
		t.Errorf("a zv text: probabilities %v over %v, want zv most probable and above 0.5", p[0], names)
	}
	if _, err := (&CharNgram{}).Probabilities(probe); err == nil {
		t.Error("Probabilities before CalibrateFit gave no error")
	}
	one := [][]string{style("xq", 1), style("zv", 1), style("zv", 2)}
	if err := c.CalibrateFit(rngs.New(1, "cal"), one, []string{"xq", "zv", "zv"}); err == nil || !strings.Contains(err.Error(), `"xq" has 1 known text`) {
		t.Errorf("one known text: %v", err)
	}
}
