package audit

import (
	"math/rand/v2"
	"testing"

	"dptext/internal/fixtures"
	"dptext/internal/rngs"
	"dptext/mechanisms/expmech"
)

// ownMass is a mutant of SanText whose batch path (the release path) changes the input word's
// own mass: redraw (the redraw-until-different bug: the input is never released, P(x | x) = 0)
// or, with probability inflate, releases the input unchanged.
type ownMass struct {
	*expmech.SanText
	redraw  bool
	inflate float64
}

func (m ownMass) ApplyBatch(gens []*rand.Rand, docs [][]string) [][]string {
	out := m.SanText.ApplyBatch(gens, docs)
	for d, doc := range docs {
		for i, w := range doc {
			switch {
			case m.redraw:
				for out[d][i] == w {
					out[d][i] = m.SanText.ApplyBatch(gens[d:d+1], [][]string{{w}})[0][0]
				}
			case gens[d].Float64() < m.inflate:
				out[d][i] = w
			}
		}
	}
	return out
}

// TestOwnWordProbability: the released word's own probability is tested on its own for every
// exactly audited input. Over 1,000 random words in 10 dimensions SanText at ε = 3 gives each
// word an own probability of a few per cent or less, mostly pooled in the χ² test; the correct
// SanText passes, and SanText that redraws until the output differs from the input, or that
// releases the input unchanged 3 % of the time, fails the own-word test on every tested input.
func TestOwnWordProbability(t *testing.T) {
	store := fixtures.RandomStore(t, rngs.New(1, "own"), 1000, 10, 0.2)
	m, err := expmech.NewSanText(store, 3, expmech.DefaultSanTextOptions())
	if err != nil {
		t.Fatal(err)
	}
	own := func(tg *Target) (tested, rejected int) {
		for _, f := range mustRun(t, tg, options(3000)).Findings {
			if f.Kind == "own word and largest outputs" {
				tested++
				if f.Violates() {
					rejected++
				} else {
					t.Log(f.Describe())
				}
			}
		}
		return tested, rejected
	}
	if n, bad := own(target(t, "santext", m, store)); n < 9 || bad > 0 {
		t.Errorf("correct santext: %d of %d own-word tests rejected, want ≥ 9 tested and none rejected", bad, n)
	}
	for name, mut := range map[string]ownMass{"redraw until different": {SanText: m, redraw: true}, "own word inflated by 3 %": {SanText: m, inflate: 0.03}} {
		if n, bad := own(target(t, name, mut, store)); n == 0 || bad < n {
			t.Errorf("%s: %d of %d inputs rejected, want all", name, bad, n)
		}
	}
}

// TestDoubledSanTextFails: SanText run at 2ε in its sampler and its distribution alike, held
// to the claim ε, fails: the sampler tests agree with its distribution, and the drawn pairs'
// losses stay below ε·d, but the pair nearest its claim among the most frequent words (exact,
// every pair) has a loss above ε·d; the correct SanText's stays within it.
func TestDoubledSanTextFails(t *testing.T) {
	store := fixtures.RandomStore(t, rngs.New(3, "doubled"), 300, 10, 0.3)
	find := func(tg *Target) Finding {
		for _, f := range mustRun(t, tg, options(1000)).Findings {
			if f.Method == "exact, every pair" {
				return f
			}
		}
		t.Fatal("no exact every-pair finding")
		return Finding{}
	}
	m, err := expmech.NewSanText(store, 3, expmech.DefaultSanTextOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := find(target(t, "santext", m, store)); f.Violates() || !(f.PerUnit() > 1.5) {
		t.Errorf("correct santext at ε = 3: %s; want within the claim and above half of it", f.Describe())
	}
	doubled, err := expmech.NewSanText(store, 6, expmech.DefaultSanTextOptions())
	if err != nil {
		t.Fatal(err)
	}
	tg := target(t, "santext at 2ε", doubled, store)
	tg.Epsilon = 3
	if f := find(tg); !f.Violates() {
		t.Errorf("santext at 2ε held to ε passed: %s", f.Describe())
	}
}
