package nearest

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// The AVX-VNNI and AVX2 integer sums of the Int8 assembly kernel must give bit-identical
// lower bounds and lane minima: both sums are exact, and the float32 epilogue is shared. The
// inputs span the kernel's contract, including the extremes (bytes 0 and 255, query levels
// ±31) where a saturating or sign-confused sum would differ, and a long row (MaxInt8Dim-sized
// sums).
func TestInt8KernelVNNIMatchesAVX2(t *testing.T) {
	if !useAVX2 || !useVNNI {
		// CI's machines have AVX-VNNI, so there the comparison must run.
		if os.Getenv("CI") == "true" {
			t.Fatal("this CPU lacks AVX2+FMA or AVX-VNNI, but CI must compare the VNNI and AVX2 sums")
		}
		t.Skip("this CPU lacks AVX2+FMA or AVX-VNNI: the VNNI path cannot run here")
	}
	rng := rand.New(rand.NewPCG(16, 1))
	for _, groups := range []int{2, 4, 26, 2 * ((MaxInt8Dim + 7) / 8)} {
		for _, npanels := range []int{1, 3, 8} {
			for trial := range 4 {
				q := make([]int8, groups*4*int8TileQueries)
				for i := range q {
					switch trial {
					case 0:
						q[i] = int8(rng.IntN(2*queryLevels+1) - queryLevels)
					case 1:
						q[i] = queryLevels
					default:
						q[i] = int8([]int{-queryLevels, queryLevels}[rng.IntN(2)])
					}
				}
				panels := make([]uint8, npanels*groups*groupBytes)
				for i := range panels {
					switch trial {
					case 0, 2:
						panels[i] = uint8(rng.IntN(256))
					case 1:
						panels[i] = 255
					default:
						panels[i] = uint8(255 * rng.IntN(2))
					}
				}
				info := make([]float32, npanels*infoFields*panelRows)
				for i := range info {
					info[i] = float32(rng.NormFloat64())
				}
				consts := make([]float32, int8TileQueries*queryConsts*8)
				for i := range consts {
					consts[i] = float32(rng.NormFloat64())
				}
				outStride := npanels * panelRows
				run := func(vnni bool) ([]float32, []float32) {
					out := make([]float32, int8TileQueries*outStride)
					mins := make([]float32, int8TileQueries*2*minLanes)
					for i := range mins {
						mins[i] = float32(math.Inf(1))
					}
					tileScoresInt8AVX2(&q[0], &panels[0], &info[0], &consts[0], groups, npanels, &out[0], outStride, &mins[0], vnni)
					return out, mins
				}
				out1, mins1 := run(true)
				out2, mins2 := run(false)
				for i := range out1 {
					if math.Float32bits(out1[i]) != math.Float32bits(out2[i]) {
						t.Fatalf("groups %d, panels %d, trial %d: out[%d] = %g with VNNI, %g with AVX2", groups, npanels, trial, i, out1[i], out2[i])
					}
				}
				for i := range mins1 {
					if math.Float32bits(mins1[i]) != math.Float32bits(mins2[i]) {
						t.Fatalf("groups %d, panels %d, trial %d: mins[%d] = %g with VNNI, %g with AVX2", groups, npanels, trial, i, mins1[i], mins2[i])
					}
				}
			}
		}
	}
}
