package verdict

import (
	"testing"

	"dptext/internal/rngs"
)

// BenchmarkVerdictMechanismsDesign times a family of about configs/mechanisms.toml's size — 14
// mechanisms (2 ε each on a fixed axis), three utilities, three levels: 819 pairs, 30 authors ×
// 14 items,
// B = 20,000 — computed (MatchedWeights) and adjusted (AdjustFamilies). Run with -cpu 1,2 to
// read the parallel speed-up against the one-goroutine reference in the same process;
// -benchmem shows the allocations, which do not grow with B per replicate (the buffers are per
// worker, the replicates written in place).
func BenchmarkVerdictMechanismsDesign(b *testing.B) {
	rng := rngs.New(43, "bench")
	truth := make([][3]float64, 14)
	cluster, points := familyStudy(rng, 30, 14, truth)
	spec := familySpec(20000)
	spec.Levels, spec.LevelNames = []float64{1.8, 1.5, 1.2}, []string{"a", "b", "c"}
	w := ClusterWeights(rng, 30, spec.Replicates)
	b.ResetTimer()
	for b.Loop() {
		res, err := MatchedWeights(spec, cluster, 30, points, w)
		if err != nil {
			b.Fatal(err)
		}
		if err := AdjustFamilies([]*Result{res}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
