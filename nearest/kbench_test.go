package nearest

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkKernelTmp(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	groups, np := 26, 64
	tileBytes := groups * 4 * int8TileQueries
	q := make([]int8, int8WideTiles*tileBytes)
	for i := range q {
		q[i] = int8(rng.IntN(63) - 31)
	}
	panels := make([]uint8, np*groups*groupBytes)
	for i := range panels {
		panels[i] = uint8(rng.IntN(256))
	}
	info := make([]float32, np*infoFields*panelRows)
	for i := range info {
		info[i] = float32(rng.NormFloat64())
	}
	consts := make([]float32, 12*queryConsts*8)
	out := make([]float32, 12*np*panelRows)
	mins := make([]float32, 12*2*minLanes)
	for _, k := range []string{"avx512", "vnni"} {
		b.Run(k, func(b *testing.B) {
			saved := useAVX512
			useAVX512 = k == "avx512"
			for b.Loop() {
				tileScoresInt8Wide(q, tileBytes, 3, panels, info, consts, groups, np, out, np*panelRows, mins, make([]float32, 12), make([]uint16, 12*64))
			}
			useAVX512 = saved
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(12*np*16*groups), "ns/rowgroupquery")
		})
	}
}
