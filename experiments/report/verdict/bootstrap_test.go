package verdict

import (
	"math"
	"math/rand/v2"
	"testing"

	"dptext/internal/rngs"
)

// clusteredStudy simulates one study: authors × perAuthor items in two paired rows (two
// mechanisms scored on the same items). An item's value in row r is mu[r] + a + e_r with an
// author effect a ~ N(0, 1) shared by the author's items in both rows and an item effect
// e_r ~ N(0, 1) (intra-author correlation 0.5 within a row): the truth of row r is mu[r].
func clusteredStudy(rng *rand.Rand, authors, perAuthor int, mu [2]float64) (rows [2][]float64, cluster []int) {
	for a := range authors {
		eff := rng.NormFloat64()
		for range perAuthor {
			cluster = append(cluster, a)
			for r := range rows {
				rows[r] = append(rows[r], mu[r]+eff+rng.NormFloat64())
			}
		}
	}
	return rows, cluster
}

// coverage runs studies simulated studies of 60 authors × 4 items and returns the share
// whose 95 % cluster-bootstrap interval (B = 400) covers the truth of row 0's mean and of the
// difference row 0 − row 1. perItem resamples items instead of authors (the mutant).
func coverage(studies int, perItem bool) (mean, diff float64) {
	mu := [2]float64{0.3, 0.1}
	rng := rngs.New(29, "bootstrap-coverage")
	var hitMean, hitDiff int
	for range studies {
		rows, cluster := clusteredStudy(rng, 60, 4, mu)
		clusters := 60
		if perItem {
			clusters = len(cluster)
			cluster = make([]int, clusters)
			for i := range cluster {
				cluster[i] = i
			}
		}
		w := ClusterWeights(rng, clusters, 400)
		m, d := make([]float64, len(w)), make([]float64, len(w))
		for b, wb := range w {
			a, c := WeightedMean(rows[0], cluster, wb), WeightedMean(rows[1], cluster, wb)
			m[b], d[b] = a, a-c
		}
		if lo, hi := ExpandedPercentileInterval(m, 0.95, clusters); lo <= mu[0] && mu[0] <= hi {
			hitMean++
		}
		if lo, hi := ExpandedPercentileInterval(d, 0.95, clusters); lo <= mu[0]-mu[1] && mu[0]-mu[1] <= hi {
			hitDiff++
		}
	}
	return float64(hitMean) / float64(studies), float64(hitDiff) / float64(studies)
}

// The cluster bootstrap's 95 % (expanded percentile) intervals cover the truth of a cell's
// mean and of a paired difference in 93–97 % of 1,000 simulated studies with correlated items
// per author. Measured with this seed: 0.938 for the mean, 0.948 for the difference. The share
// is a binomial estimate with standard deviation √(0.95·0.05/1000) = 0.007: an interval with
// exact coverage fails the band with probability 0.4 %, one whose true coverage is 0.94 (about
// what is measured) with probability 7 % under another seed (the seed is fixed, so the test
// itself is deterministic). The plain percentile interval covers the mean in 0.925 of these
// studies (too narrow with 60 clusters: the reason for the expanded interval). The mutant
// resamples items as if they were independent: with 4 items per author at correlation 0.5
// (design effect 1 + 3·0.5 = 2.5) its intervals are √2.5 = 1.6 times too narrow and cover the
// mean in 0.763 of the studies, far outside the band. The paired difference has no author
// effect (it cancels), so both schemes cover it.
func TestClusterBootstrapCoverage(t *testing.T) {
	const studies = 1000
	mean, diff := coverage(studies, false)
	t.Logf("cluster bootstrap: mean covered in %.3f, difference in %.3f of %d studies", mean, diff, studies)
	for name, c := range map[string]float64{"mean": mean, "difference": diff} {
		if c < 0.93 || c > 0.97 {
			t.Errorf("95 %% interval of the %s covered the truth in %.3f of %d studies, want 0.93–0.97", name, c, studies)
		}
	}
	mutMean, mutDiff := coverage(studies, true)
	t.Logf("item bootstrap (mutant): mean covered in %.3f, difference in %.3f", mutMean, mutDiff)
	if mutMean >= 0.93 {
		t.Errorf("the item-level bootstrap covered the mean in %.3f of studies: the test cannot tell it from the cluster bootstrap", mutMean)
	}
}

func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, math.NaN(), 0.03, 0.5})
	want := []float64{0.04, 0.09, math.NaN(), 0.09, 0.5}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12) {
			t.Errorf("Holm = %v, want %v", got, want)
			break
		}
	}
}

func TestPercentileIntervalAndWeights(t *testing.T) {
	if lo, hi := PercentileInterval([]float64{4, math.NaN(), 0, 2, 1, 3}, 0.5); lo != 1 || hi != 3 {
		t.Errorf("50 %% interval of 0…4 = [%v, %v], want [1, 3]", lo, hi)
	}
	w := ClusterWeights(rngs.New(1, "w"), 5, 3)
	for _, wb := range w {
		var s float64
		for _, x := range wb {
			s += x
		}
		if s != 5 {
			t.Errorf("replicate draws %v clusters, want 5", s)
		}
	}
}
