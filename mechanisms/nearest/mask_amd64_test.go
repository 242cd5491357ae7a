package nearest

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The AVX2 mask must flag exactly the rows the Go definition flags, on values that include the
// comparison's edges: equality with the threshold (a strict < would drop these rows, and with
// them possibly the nearest word), NaN (never ≤), ±Inf and signed zeros, on 1 to blockPanels
// panels. Any differing bit fails.
func TestMaskAtMostAVX2MatchesGo(t *testing.T) {
	if !useAVX2 {
		if has, err := cpuinfoFlags(); err == nil && has["avx2"] && has["fma"] {
			t.Fatalf("/proc/cpuinfo reports AVX2 and FMA, but the decoder's detection says %v", useAVX2)
		}
		t.Skip("this CPU lacks AVX2+FMA: the assembly cannot run here (.ci/run requires this test to pass where /proc/cpuinfo reports avx2)")
	}
	rng := rand.New(rand.NewPCG(48, 2))
	edges := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1, -1}
	for _, npanels := range []int{1, 2, 7, blockPanels} {
		for trial := range 20 {
			lower := make([]float32, npanels*panelRows)
			threshold := float32(rng.NormFloat64())
			switch trial % 4 {
			case 1:
				threshold = edges[rng.IntN(len(edges))]
			case 2:
				threshold = float32(math.Inf(1))
			}
			for i := range lower {
				switch rng.IntN(4) {
				case 0:
					lower[i] = threshold // equal: flagged
				case 1:
					lower[i] = edges[rng.IntN(len(edges))]
				default:
					lower[i] = float32(rng.NormFloat64())
				}
			}
			want, got := make([]uint16, npanels), make([]uint16, npanels)
			for i := range got {
				got[i] = 0xA5A5 // stale bits must be cleared
			}
			maskAtMostGo(lower, threshold, want)
			maskAtMost(lower, threshold, got)
			for p := range want {
				if got[p] != want[p] {
					t.Fatalf("%d panels, threshold %v, panel %d (%v): mask %016b, want %016b", npanels, threshold, p,
						lower[p*panelRows:(p+1)*panelRows], got[p], want[p])
				}
			}
		}
	}
}
