package nearest

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// The AVX-VNNI and AVX2 integer sums of the Int8 assembly kernel must give bit-identical
// lower bounds and lane minima: both sums are exact, and the float32 epilogue is shared. The
// inputs span the kernel's contract, including the extremes (bytes 0 and 255, query levels
// ±31) where a saturating or sign-confused sum would differ, and a long row (MaxInt8Dim-sized
// sums).
func TestInt8KernelVNNIMatchesAVX2(t *testing.T) {
	if !useAVX2 || !useVNNI {
		// The skip must be the CPU's, not the detection's: where Linux reports the instructions,
		// the comparison has to run (.ci/run also requires this test to pass on such a CPU).
		if has, err := cpuinfoFlags(); err == nil && has["avx2"] && has["fma"] && has["avx_vnni"] {
			t.Fatalf("/proc/cpuinfo reports AVX2, FMA and AVX-VNNI, but the decoder's detection says AVX2+FMA %v, VNNI %v", useAVX2, useVNNI)
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
						q[i] = int8(rng.IntN(2*avx2QueryLevels+1) - avx2QueryLevels)
					case 1:
						q[i] = avx2QueryLevels
					default:
						q[i] = int8([]int{-avx2QueryLevels, avx2QueryLevels}[rng.IntN(2)])
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

// The AVX-512 Int8 kernel must give, for each of its int8WideTiles query tiles, exactly the
// lower bounds of the AVX2 kernel on that tile: the integer sums are exact and the epilogue
// performs the same float32 operations in the same order. The inputs span the kernel's
// contract: extreme bytes and query levels, padding rows (+Inf info), negative and zero
// constants, minima that start finite, an output stride wider than the panels written, a long
// row, and odd numbers of groups (the AVX-512 layout's; compared with the AVX2 kernel on the
// data padded with a zero group). The row masks must flag exactly the lower bounds ≤ each
// query's threshold, and the minima of the upper bounds must agree. Mutant: the odd last group
// skipped fails it.
func TestInt8KernelAVX512MatchesAVX2(t *testing.T) {
	if !useAVX2 || !useAVX512 {
		// The decoder never uses the kernel on such a CPU (TestAVX512KernelSelected checks the
		// detection on every CPU), so there is nothing to compare.
		t.Skip("this CPU lacks AVX2+FMA or AVX-512 F/BW/VL/VNNI: the AVX-512 kernel cannot run here, and the decoder does not use it")
	}
	const wq = int8WideTiles * int8TileQueries
	rng := rand.New(rand.NewPCG(16, 512))
	for _, groups := range []int{1, 2, 4, 25, 26, 2 * ((MaxInt8Dim + 7) / 8), (MaxInt8Dim + 3) / 4} {
		for _, npanels := range []int{1, 3, 64} {
			for trial := range 5 {
				tileBytes := groups * 4 * int8TileQueries
				q := make([]int8, int8WideTiles*tileBytes)
				for i := range q {
					switch trial {
					case 1:
						q[i] = avx2QueryLevels
					case 2:
						q[i] = -avx2QueryLevels
					default:
						q[i] = int8(rng.IntN(2*avx2QueryLevels+1) - avx2QueryLevels)
					}
				}
				panels := make([]uint8, npanels*groups*groupBytes)
				for i := range panels {
					switch trial {
					case 1, 2:
						panels[i] = 255
					case 3:
						panels[i] = uint8(255 * rng.IntN(2))
					default:
						panels[i] = uint8(rng.IntN(256))
					}
				}
				info := make([]float32, npanels*infoFields*panelRows)
				for i := range info {
					info[i] = float32(rng.NormFloat64() * math.Ldexp(1, rng.IntN(20)-10))
				}
				if trial == 4 { // padding rows, as quantise leaves them
					for p := range npanels {
						for j := panelRows / 2; j < panelRows; j++ {
							for f := range infoFields {
								info[p*infoFields*panelRows+f*panelRows+j] = 0
							}
							info[p*infoFields*panelRows+j] = float32(math.Inf(1))
						}
					}
				}
				consts := make([]float32, wq*queryConsts*8)
				for r := range wq {
					for c := range queryConsts {
						v := float32(rng.NormFloat64())
						if c >= 2 { // α, β, γ are ≥ 0
							v = float32(math.Abs(float64(v)))
						}
						for l := range 8 {
							consts[(r*queryConsts+c)*8+l] = v
						}
					}
				}
				outStride := npanels*panelRows + 16*rng.IntN(3)
				startU := make([]float32, wq*panelRows) // minima that start finite: the fold must keep them
				for i := range startU {
					startU[i] = float32(math.Inf(1))
					if trial%2 == 0 {
						startU[i] = float32(rng.NormFloat64() * 100)
					}
				}
				out1, out2 := make([]float32, wq*outStride), make([]float32, wq*outStride)
				mins2 := make([]float32, wq*2*minLanes)
				for i := range mins2 {
					mins2[i] = float32(math.Inf(1))
				}
				// The AVX2 kernel adds groups in pairs: an odd count is compared on the same data
				// padded with a zero group (which adds nothing to the exact integer sums).
				refGroups, refTile, refQ, refPanels := groups, tileBytes, q, panels
				if groups%2 != 0 {
					refGroups, refTile = groups+1, tileBytes+4*int8TileQueries
					refQ, refPanels = make([]int8, int8WideTiles*refTile), make([]uint8, npanels*refGroups*groupBytes)
					for i := range int8WideTiles {
						copy(refQ[i*refTile:], q[i*tileBytes:(i+1)*tileBytes])
					}
					for p := range npanels {
						copy(refPanels[p*refGroups*groupBytes:], panels[p*groups*groupBytes:(p+1)*groups*groupBytes])
					}
				}
				for i := range int8WideTiles {
					r := i * int8TileQueries
					tileScoresInt8AVX2(&refQ[i*refTile], &refPanels[0], &info[0], &consts[r*queryConsts*8], refGroups, npanels,
						&out2[r*outStride], outStride, &mins2[r*2*minLanes], false)
				}
				// Thresholds equal to some row's bound (the comparison must be ≤), random, ±Inf.
				thr := make([]float32, wq)
				for r := range thr {
					switch r % 4 {
					case 0:
						thr[r] = out2[r*outStride+rng.IntN(npanels*panelRows)]
					case 1:
						thr[r] = float32(rng.NormFloat64() * 100)
					case 2:
						thr[r] = float32(math.Inf(1))
					default:
						thr[r] = float32(math.Inf(-1))
					}
				}
				masks := make([]uint16, wq*blockPanels)
				minU := slices.Clone(startU)
				tileScoresInt8AVX512(&q[0], tileBytes, &panels[0], &info[0], &consts[0], groups, npanels, &out1[0], outStride, &minU[0], &thr[0], &masks[0])
				for i := range out1 {
					if math.Float32bits(out1[i]) != math.Float32bits(out2[i]) {
						t.Fatalf("groups %d, panels %d, trial %d: out[%d] = %g with AVX-512, %g with AVX2", groups, npanels, trial, i, out1[i], out2[i])
					}
				}
				for r := range wq {
					for p := range npanels {
						var want uint16
						for j := range panelRows {
							if out2[r*outStride+p*panelRows+j] <= thr[r] {
								want |= 1 << j
							}
						}
						if got := masks[r*blockPanels+p]; got != want {
							t.Fatalf("groups %d, panels %d, trial %d: query %d, panel %d: mask %016b, want %016b (threshold %g)", groups, npanels, trial, r, p, got, want, thr[r])
						}
					}
					// Lane l of the AVX-512 minima holds rows j = l, the AVX2 kernel's lane
					// l mod minLanes rows l and l + minLanes: folded, the two must agree.
					for l := range minLanes {
						got := min(minU[r*panelRows+l], minU[r*panelRows+minLanes+l])
						want := min(mins2[r*2*minLanes+minLanes+l], startU[r*panelRows+l], startU[r*panelRows+minLanes+l])
						if got != want {
							t.Fatalf("groups %d, panels %d, trial %d: query %d, lanes %d and %d: smallest upper bound %g with AVX-512, %g with AVX2",
								groups, npanels, trial, r, l, l+minLanes, got, want)
						}
					}
				}
			}
		}
	}
}

// TestAVX512KernelSelected checks the runtime detection against the kernel's own reading of the
// CPU flags (Linux's /proc/cpuinfo): on a CPU with AVX-512 F, BW, VL and VNNI the decoder must
// choose the AVX-512 kernel, and on any other CPU it must not.
func TestAVX512KernelSelected(t *testing.T) {
	has, err := cpuinfoFlags()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI must check the AVX-512 kernel's selection, but /proc/cpuinfo is unreadable: %v", err)
		}
		t.Skip("no /proc/cpuinfo: cannot read the CPU's flags independently")
	}
	all := has["avx512f"] && has["avx512bw"] && has["avx512vl"] && has["avx512_vnni"] && has["avx2"] && has["fma"]
	if all != useAVX512 {
		t.Fatalf("/proc/cpuinfo says AVX-512 F/BW/VL/VNNI = %v, the decoder's detection says %v", all, useAVX512)
	}
}

// cpuinfoFlags returns the CPU flags of the first processor in Linux's /proc/cpuinfo: the
// kernel's reading of the CPU, independent of the decoder's own detection.
func cpuinfoFlags() (map[string]bool, error) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, flags, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			for _, f := range strings.Fields(flags) {
				has[f] = true
			}
			break
		}
	}
	return has, nil
}
