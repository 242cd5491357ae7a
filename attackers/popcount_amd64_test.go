package attackers

import (
	"math/rand/v2"
	"testing"
)

// The AVX-512 popcounts must equal the Go loop's for every length from 0 to 40 words (whole
// vectors of eight, a tail, both) on random, all-ones and sparse bitsets. Mutants (OR for AND,
// the tail skipped, two accumulators swapped) fail it.
func TestMaskedPopcounts3AVX512MatchesGo(t *testing.T) {
	if !usePopcountAVX512 {
		t.Skip("this CPU lacks AVX-512 VPOPCNTDQ: the assembly cannot run here (.ci/run requires this test to pass where /proc/cpuinfo reports avx512_vpopcntdq)")
	}
	rng := rand.New(rand.NewPCG(48, 4))
	for words := range 41 {
		for trial := range 5 {
			planes := make([][]uint64, 4)
			for p := range planes {
				planes[p] = make([]uint64, words)
				for i := range planes[p] {
					switch trial {
					case 0:
						planes[p][i] = ^uint64(0)
					case 1:
						planes[p][i] = 1 << rng.IntN(64)
					default:
						planes[p][i] = rng.Uint64()
					}
				}
			}
			a, b, c := maskedPopcounts3(planes[0], planes[1], planes[2], planes[3])
			wa, wb, wc := maskedPopcounts3Go(planes[0], planes[1], planes[2], planes[3])
			if a != wa || b != wb || c != wc {
				t.Fatalf("%d words, trial %d: (%d, %d, %d), the Go loop (%d, %d, %d)", words, trial, a, b, c, wa, wb, wc)
			}
		}
	}
}
