package linalg

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSqDist4x4 scores four float64 queries against 20,000 float32 rows of dimension 100
// (a pass of SanText's distance rows over configs/mechanisms.toml's vocabulary), four rows per
// call; pairs/s counts query–row distances.
func BenchmarkSqDist4x4(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, dim = 20000, 100
	vocab := make([][]float32, rows)
	for i := range vocab {
		vocab[i] = make([]float32, dim)
		for t := range vocab[i] {
			vocab[i][t] = float32(rng.NormFloat64())
		}
	}
	q := make([]float64, 4*dim)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	var dst [16]float64
	for b.Loop() {
		for j := 0; j+4 <= rows; j += 4 {
			y := [4][]float32{vocab[j], vocab[j+1], vocab[j+2], vocab[j+3]}
			SqDist4x4(&dst, q, &y)
		}
	}
	b.ReportMetric(4*rows*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}
