package report

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
		low, high := wilson(c.x, c.n, 0.95)
		if math.Abs(low-c.low) > 5e-5 || math.Abs(high-c.high) > 5e-5 {
			t.Errorf("wilson(%v/%v) = [%.4f, %.4f], want [%.4f, %.4f]", c.x, c.n, low, high, c.low, c.high)
		}
	}
}

func TestFisherExact(t *testing.T) {
	// Fisher's tea-tasting table [[3,1],[1,3]]: two-sided p = (1+16+16+1)/70 = 34/70.
	if p := fisherExact(3, 1, 1, 3); math.Abs(p-34.0/70) > 1e-12 {
		t.Errorf("fisherExact(3,1,1,3) = %v, want %v", p, 34.0/70)
	}
	if p := fisherExact(10, 10, 10, 10); math.Abs(p-1) > 1e-9 {
		t.Errorf("equal proportions: p = %v, want 1", p)
	}
	// 16/20 against 4/20 in each of 5 repeats, pooled: 80/100 against 20/100.
	if p := fisherExact(80, 20, 20, 80); p > 1e-15 {
		t.Errorf("80/100 against 20/100: p = %v, want < 1e-15", p)
	}
}

func TestWelch(t *testing.T) {
	// {1..5} against {3..7}: t = 2, 8 degrees of freedom, two-sided p = 0.080516 (t table).
	m1, sd1 := meanSD([]float64{1, 2, 3, 4, 5})
	m2, sd2 := meanSD([]float64{3, 4, 5, 6, 7})
	if p := welch(m1, sd1, 5, m2, sd2, 5); math.Abs(p-0.080516) > 1e-5 {
		t.Errorf("welch p = %v, want 0.080516", p)
	}
	if p := welch(1, 0, 3, 1, 0, 3); p != 1 {
		t.Errorf("equal constants: p = %v, want 1", p)
	}
	if p := welch(1, 0, 3, 2, 0, 3); p != 0 {
		t.Errorf("different constants: p = %v, want 0", p)
	}
}
