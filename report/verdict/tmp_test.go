package verdict
import "testing"
func TestTmpPow(t *testing.T) {
	for _, b := range []bool{false, true} {
		for _, g := range []float64{0.04, 0.08, 0.12, 0.16, 0.2, 0.25, 0.3} {
			p := powerStudies(t, 30, g, b, 400)
			t.Logf("binary %v gap %.2f power %.2f", b, g, p)
			if p >= 0.9 { break }
		}
	}
}
