package nearest_test

import (
	"testing"

	"dptext/internal/rngs"
	"dptext/mechanisms/nearest"
)

// TestZipfRowsFavourFrequentWords checks the share of the most frequent row.
func TestZipfRowsFavourFrequentWords(t *testing.T) {
	rows := nearest.ZipfRows(rngs.New(7, "test/zipf"), 1000, 20000)
	first := 0
	for _, r := range rows {
		if r < 0 || r >= 1000 {
			t.Fatalf("row %d outside the vocabulary", r)
		}
		if r == 0 {
			first++
		}
	}
	// P(row 0) = 1/H(1000) ≈ 0.134; 20000 draws: standard deviation ≈ 48, so the window
	// [2400, 2970] is over 6 deviations wide on each side (false failure rate < 1e-8).
	if first < 2400 || first > 2970 {
		t.Errorf("row 0 drawn %d times of 20000; Zipf's law gives about 2680", first)
	}
}
