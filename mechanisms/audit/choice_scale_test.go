package audit

import (
	"strings"
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/metricdp"
	"dptext/mechanisms/nearest"
)

// TestVickreyChoiceAtScale runs the choice test through the release path on a vocabulary with
// the default data's geometry: 20,000 words of 100 dimensions, Gaussian, so that a noisy
// vector's nearest words are nearly equidistant and spread over thousands of words (more than
// the decoding check's candidate set of decodeCandidates). A correct Vickrey must pass both
// choice tests at ε 1, 5 and 25 (false-failure rate: each two-sided test at 2·level, level =
// α/Tests of the audit's default options). The audit before this test searched the two nearest
// words among the candidates only past the first decodeExhaustive draws and failed the correct
// mechanism here (at ε 1: 69 of 1,500 second-nearest releases counted against 747 ± 19
// expected; at ε 5: 580 against 727 ± 19). A Vickrey whose choice departs from the published rule as much as that bias —
// its second-nearest probability scaled by 0.72 — must fail (power: at 1,500 draws with
// Σp₂ ≈ 750 the expected shortfall of 210 is 11 standard deviations; measured p ≤ 2·10⁻¹⁵ at
// every ε).
func TestVickreyChoiceAtScale(t *testing.T) {
	store := fixtures.RandomStore(t, rngs.New(7, "choice-at-scale"), 20000, 100, 1)
	const draws = 1500
	for _, eps := range []float64{1, 5, 25} {
		vo := metricdp.DefaultVickreyOptions()
		vo.Workers = 1
		v, err := metricdp.NewVickrey(store, eps, vo)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name    string
			scale   float64
			mutated bool
		}{{"vickrey", 1, false}, {"vickrey choosing the second nearest 0.72 times as often", 0.72, true}} {
			var m mechanisms.Mechanism = v
			if tc.mutated {
				d, err := nearest.Shared(v.DecodeStore(), 0, 1)
				if err != nil {
					t.Fatal(err)
				}
				m = vickreyChoiceMutant{Vickrey: v, decoder: d, scale: tc.scale}
			}
			tg := target(t, tc.name, m, store)
			_, choice, counts, err := decodeFinding(tg, 1, 0, store.Word(3), nil, draws, 1e-4)
			if err != nil {
				t.Fatal(err)
			}
			if len(choice) != 2 {
				t.Fatalf("%s ε = %v: %d choice findings, want 2", tc.name, eps, len(choice))
			}
			failed := 0
			for _, f := range choice {
				if f.Violates() {
					failed++
				}
				t.Logf("%s ε = %v (%d distinct releases): %s: %s", tc.name, eps, len(counts), f.Kind, f.Output)
			}
			if !tc.mutated && failed > 0 {
				t.Errorf("correct Vickrey at ε = %v fails %d choice tests: %s", eps, failed, choice[0].Output)
			}
			if tc.mutated && !strings.Contains(choice[0].Output, "refutes") {
				t.Errorf("the mutant at ε = %v passed the all-draws choice test: %s", eps, choice[0].Output)
			}
		}
	}
}
