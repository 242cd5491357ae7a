package calibrate

import (
	"dptext/internal/fixtures"
	"dptext/internal/linalg"
	"dptext/internal/rngs"
	"dptext/mechanisms/metricdp"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func TestEMD(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(8, 8)), 400, 6, 1)
	cal, err := EMD(store, []float64{1e9, 0.01}, 300, rngs.New(9, "calibrate"), metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	still, moved := cal[0], cal[1]
	if still.UnchangedShare != 1 || still.RankShares[0] != 1 || math.Abs(still.MeanCosine-1) > 1e-12 {
		t.Errorf("ε = 1e9 should change nothing: %+v", still)
	}
	// At ε = 0.01 the noise (radius ≈ 600) swamps unit-scale vectors: outputs are the extreme
	// words of the vocabulary, mostly far from the input.
	if moved.UnchangedShare > 0.1 || moved.RankShares[len(RankBuckets)-1] < 0.5 || moved.MeanCosine > 0.5 {
		t.Errorf("ε = 0.01 should change most words: %+v", moved)
	}
	for _, c := range cal {
		sum := 0.0
		for _, s := range c.RankShares {
			sum += s
		}
		if math.Abs(sum-1) > 1e-12 || c.Words != 300 {
			t.Errorf("ε = %g: rank shares sum to %v over %d words", c.Epsilon, sum, c.Words)
		}
	}
	if math.Abs(moved.MeanNoiseRadius-600)/600 > 0.05 { // Gamma(6, 100) mean 600, sd 245/√300
		t.Errorf("mean noise radius %v, want ≈ 600", moved.MeanNoiseRadius)
	}
	if _, err := EMD(store, nil, 10, rngs.New(1, ""), metricdp.DefaultEMDOptions()); err == nil {
		t.Error("no epsilon accepted")
	}
	if _, err := EMD(store, []float64{1e-40}, 10, rngs.New(1, ""), metricdp.DefaultEMDOptions()); err == nil {
		t.Error("calibration at ε = 1e-40 accepted")
	}
}

func TestNearestNeighboursAgainstFullSort(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(10, 10)), 300, 4, 1)
	sample := []int{0, 17, 299}
	got := nearestNeighbours(store, sample, 2)
	for i, row := range sample {
		all := make([]int, store.Len())
		for w := range all {
			all[w] = w
		}
		x := store.Vector(row)
		sort.SliceStable(all, func(p, q int) bool {
			return linalg.SquaredEuclidean(x, store.Vector(all[p])) < linalg.SquaredEuclidean(x, store.Vector(all[q]))
		})
		if !slices.Equal(got[i], all[:calibrationNeighbours]) {
			t.Errorf("neighbours of row %d differ from a full sort", row)
		}
	}
}

// N_w and S_w (Feyisetan et al. 2020, §4.2): at a huge ε every draw releases the word itself
// (N_w = K, S_w = 1); at a tiny ε almost none does and the outputs spread over many words. An
// intermediate ε lies in between, and N_w/K agrees with EMD's unchanged share.
func TestCMP(t *testing.T) {
	store := fixtures.RandomStore(t, rand.New(rand.NewPCG(8, 8)), 400, 6, 1)
	const words, draws = 60, 40
	cal, err := CMP(store, []float64{1e9, 0.01, 3}, words, draws, rngs.New(9, "calibrate"), metricdp.EMDOptions{OOV: metricdp.OOVKeep, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	still, moved, mid := cal[0], cal[1], cal[2]
	if still.MeanNw != draws || still.MedianNw != draws || still.MeanSw != 1 || still.MedianSw != 1 {
		t.Errorf("ε = 1e9: %+v, want N_w = %d and S_w = 1", still, draws)
	}
	if moved.MeanNw > 0.1*draws || moved.MedianSw < 5 {
		t.Errorf("ε = 0.01: %+v, want N_w near 0 and many distinct outputs", moved)
	}
	if !(mid.MeanNw < still.MeanNw && mid.MeanNw > moved.MeanNw && mid.MeanSw > 1 && mid.MeanSw < moved.MeanSw) {
		t.Errorf("ε = 3 should lie between: %+v", mid)
	}
	if mid.Words != words || mid.Draws != draws {
		t.Errorf("counts %+v", mid)
	}
	if _, err := CMP(store, []float64{1}, 10, 0, rngs.New(1, ""), metricdp.DefaultEMDOptions()); err == nil {
		t.Error("draws = 0 accepted")
	}
}
