package stats

import (
	"math"
	"testing"
)

func TestWilsonMatchesNewcombe(t *testing.T) {
	// Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3 (Wilson score, 95 %).
	for _, c := range []struct{ x, n, low, high float64 }{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
	} {
		low, high := Wilson(c.x, c.n, 0.95)
		if math.Abs(low-c.low) > 5e-5 || math.Abs(high-c.high) > 5e-5 {
			t.Errorf("Wilson(%v/%v) = [%.4f, %.4f], want [%.4f, %.4f]", c.x, c.n, low, high, c.low, c.high)
		}
	}
}

func TestFisherExact(t *testing.T) {
	// Fisher's tea-tasting table [[3,1],[1,3]]: two-sided p = (1+16+16+1)/70 = 34/70.
	if p := FisherExact(3, 1, 1, 3); math.Abs(p-34.0/70) > 1e-12 {
		t.Errorf("FisherExact(3,1,1,3) = %v, want %v", p, 34.0/70)
	}
	if p := FisherExact(10, 10, 10, 10); math.Abs(p-1) > 1e-9 {
		t.Errorf("equal proportions: p = %v, want 1", p)
	}
	// 16/20 against 4/20 in each of 5 repeats, pooled: 80/100 against 20/100.
	if p := FisherExact(80, 20, 20, 80); p > 1e-15 {
		t.Errorf("80/100 against 20/100: p = %v, want < 1e-15", p)
	}
}

func TestWelch(t *testing.T) {
	// {1..5} against {3..7}: t = 2, 8 degrees of freedom, two-sided p = 0.080516 (t table).
	m1, sd1 := MeanSD([]float64{1, 2, 3, 4, 5})
	m2, sd2 := MeanSD([]float64{3, 4, 5, 6, 7})
	if p := Welch(m1, sd1, 5, m2, sd2, 5); math.Abs(p-0.080516) > 1e-5 {
		t.Errorf("Welch p = %v, want 0.080516", p)
	}
	if p := Welch(1, 0, 3, 1, 0, 3); p != 1 {
		t.Errorf("equal constants: p = %v, want 1", p)
	}
	if p := Welch(1, 0, 3, 2, 0, 3); p != 0 {
		t.Errorf("different constants: p = %v, want 0", p)
	}
}

// TestClopperPearson checks the bounds against closed forms and a known value.
func TestClopperPearson(t *testing.T) {
	if got, want := ClopperPearsonUpper(0, 100, 0.05), 1-math.Pow(0.05, 0.01); math.Abs(got-want) > 1e-12 {
		t.Errorf("upper(0/100) = %v, want %v", got, want)
	}
	if got, want := ClopperPearsonLower(100, 100, 0.05), math.Pow(0.05, 0.01); math.Abs(got-want) > 1e-12 {
		t.Errorf("lower(100/100) = %v, want %v", got, want)
	}
	// One-sided 97.5 % bounds of 5/20 equal the two-sided 95 % exact interval [0.0866, 0.4910].
	if lo, hi := ClopperPearsonLower(5, 20, 0.025), ClopperPearsonUpper(5, 20, 0.025); math.Abs(lo-0.0866) > 1e-4 || math.Abs(hi-0.4910) > 1e-4 {
		t.Errorf("5/20: [%v, %v], want [0.0866, 0.4910]", lo, hi)
	}
	if ClopperPearsonLower(0, 10, 0.05) != 0 || ClopperPearsonUpper(10, 10, 0.05) != 1 {
		t.Error("extremes")
	}
}

// TestMeanMedian checks the mean and median against hand values, and that Median leaves its
// argument unsorted.
func TestMeanMedian(t *testing.T) {
	xs := []float64{5, 1, 4, 2}
	if m := Mean(xs); m != 3 {
		t.Errorf("Mean = %v, want 3", m)
	}
	if m := Median(xs); m != 3 {
		t.Errorf("Median of 4 values = %v, want 3", m)
	}
	if m := Median(xs[:3]); m != 4 {
		t.Errorf("Median of 5, 1, 4 = %v, want 4", m)
	}
	if xs[0] != 5 || xs[1] != 1 {
		t.Errorf("Median sorted its argument: %v", xs)
	}
}

// TestPearsonChiSquare: a hand-computed case. Counts (30, 20, 4, 6) of n = 60 against
// q = (0.5, 0.3, 0.1, 0.1): expected 30, 18, 6, 6 — every bin kept: (0 + 4/18 + 4/6 + 0) = 8/9,
// 3 degrees of freedom; with q = (0.5, 0.4, 0.05, 0.05) the last two (expected 3 and 3) merge
// into one bin of observed 10, expected 6: 0 + 16/24 + 16/6, 2 degrees of freedom.
func TestPearsonChiSquare(t *testing.T) {
	stat, df := PearsonChiSquare([]int{30, 20, 4, 6}, []float64{0.5, 0.3, 0.1, 0.1}, 60)
	if math.Abs(stat-8.0/9) > 1e-12 || df != 3 {
		t.Errorf("got %v with %d df, want 8/9 with 3", stat, df)
	}
	stat, df = PearsonChiSquare([]int{30, 20, 4, 6}, []float64{0.5, 0.4, 0.05, 0.05}, 60)
	if math.Abs(stat-(16.0/24+16.0/6)) > 1e-12 || df != 2 {
		t.Errorf("merged: got %v with %d df, want %v with 2", stat, df, 16.0/24+16.0/6)
	}
}
