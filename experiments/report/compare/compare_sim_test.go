package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"dptext/experiments/report"
	"dptext/internal/rngs"
)

// simDesign is configs/ci.toml's design as compare sees it: one set of 8 evaluation documents,
// 3 repeats, emd at ε 30, 10, 5 and expmech at 40 with the counts behind unchanged_share (each
// token of the same 3,302 in-vocabulary tokens released unchanged with its own probability),
// 6 classifiers' answers on 8 items (each item right with its own probability), a utility
// measure's score of each item and a continuous diagnostic per mechanism.
type simDesign struct {
	// tokenP[cell][j] is token j's probability of being released unchanged, the same on both
	// sides (same documents): heterogeneous around the ci.toml shares 0.998, 0.59, 0.067, 0.06.
	tokenP [][]float64
	// itemP[s][i] is scorer s's probability of answering item i right (the same items on both
	// sides: predictions.csv's items, tested paired).
	itemP [][]float64
}

var simEps = []float64{30, 10, 5, 40}

const simWords, simDocs, simRepeats, simScorers = 3302, 8, 3, 6

func newSimDesign(seed uint64) *simDesign {
	rng := rngs.New(seed, "sim/design")
	d := &simDesign{}
	for _, mean := range []float64{0.998, 0.59, 0.067, 0.06} {
		ps := make([]float64, simWords)
		for j := range ps {
			ps[j] = math.Min(1, math.Max(0, mean+0.3*(rng.Float64()-0.5)*math.Min(mean, 1-mean)*2))
		}
		d.tokenP = append(d.tokenP, ps)
	}
	for range simScorers {
		ps := make([]float64, simDocs*simRepeats)
		for i := range ps {
			ps[i] = rng.Float64()
		}
		d.itemP = append(d.itemP, ps)
	}
	return d
}

// rows draws one run, its rows and its items (predictions.csv): shift[c] is added to every
// token's probability in mechanism cell c.
func (d *simDesign) rows(rng *rand.Rand, shift []float64) ([]report.Row, []Item) {
	var rows []report.Row
	var items []Item
	for rep := range simRepeats {
		rows = append(rows, report.Row{Set: "8", Repeat: rep, Scorer: report.SplitScorer, Metric: "eval_docs", Value: simDocs})
		for c, ps := range d.tokenP {
			mech := "emd"
			if c == 3 {
				mech = "expmech"
			}
			row := func(scorer, metric string, v float64) report.Row {
				return report.Row{Set: "8", Mechanism: mech, Epsilon: report.EpsilonOf(simEps[c]), Repeat: rep, Scorer: scorer, Metric: metric, Value: v}
			}
			k := 0.0
			for _, p := range ps {
				if rng.Float64() < math.Min(1, p+shift[c]) {
					k++
				}
			}
			rows = append(rows, row("mechanism", report.MetricUnchangedWords, k), row("mechanism", report.MetricShareWords, simWords),
				row("mechanism", "unchanged_share", k/simWords), row("mechanism", "mean_cosine", 0.5+0.01*rng.NormFloat64()))
			for s, ps := range d.itemP {
				sc := fmt.Sprintf("scorer%d", s)
				correct := 0.0
				for i := range simDocs {
					if rng.Float64() < ps[rep*simDocs+i] {
						correct++
					}
				}
				rows = append(rows, row(sc, report.MetricCorrect, correct), row(sc, report.MetricTotal, simDocs), row(sc, report.MetricAccuracy, correct/simDocs))
			}
			// A utility measure: each item's score around its own level, in steps of 0.01 (ties
			// happen, as between two runs that release a snippet alike).
			sum := 0.0
			for i := range simDocs {
				v := math.Round(100*(d.itemP[0][rep*simDocs+i]+0.01*rng.NormFloat64())) / 100
				sum += v
				items = append(items, Item{Key: report.Key{Set: "8", Mechanism: mech, Epsilon: report.EpsilonOf(simEps[c]), Scorer: "cosine", Metric: report.MetricMean}, Repeat: rep, Item: i, Value: v})
			}
			rows = append(rows, row("cosine", report.MetricMean, sum/simDocs))
		}
	}
	return rows, items
}

// simFlagRate is the share of trials in which compare flags anything when the baseline is
// drawn from the design and the run from it with shift.
func simFlagRate(t *testing.T, trials int, alpha float64, shift []float64, paired bool) float64 {
	t.Helper()
	d := newSimDesign(1)
	opts := DefaultOptions()
	opts.Alpha = alpha
	flagged := 0
	for i := range trials {
		rng := rngs.New(uint64(i), "sim/trial")
		base, baseItems := d.rows(rng, []float64{0, 0, 0, 0})
		run, runItems := d.rows(rng, shift)
		if !paired {
			baseItems, runItems = nil, nil
		}
		v, err := RunsWithItems(base, run, baseItems, runItems, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !v.OK() {
			flagged++
		}
	}
	return float64(flagged) / float64(trials)
}

// The family-wise false-alarm rate over everything compare tests is at most α: 1,000 null
// trials of ci.toml's design (baseline and run drawn from the same law, other draws) at
// α = 0.05 flag at most 0.05 + 3 standard errors (0.071), with the utility measure tested by
// Welch's test over repeats and with its items tested paired (sign test). Measured: 0.005 and 0.006 —
// the count tests are conservative (a sum of Bernoulli draws of unequal probabilities has less
// than the binomial variance) and 24 items rarely reach α/m. Mutants: without the factor 2 in
// the paired variance of the word counts (only one side's noise) the rate is 0.094 and this
// fails. (With ties counted as items moving up in the sign test the paired rate is 0.046, still
// under the bound: this test does not catch that mutant.)
func TestCompareFamilywiseFalseAlarmBySimulation(t *testing.T) {
	const trials, alpha = 1000, 0.05
	bound := alpha + 3*math.Sqrt(alpha*(1-alpha)/trials)
	for _, paired := range []bool{false, true} {
		rate := simFlagRate(t, trials, alpha, []float64{0, 0, 0, 0}, paired)
		t.Logf("false-alarm rate over %d null trials at α = %g (items paired: %v): %.3f (bound %.3f)", trials, alpha, paired, rate, bound)
		if rate > bound {
			t.Errorf("family-wise false-alarm rate %.3f over %d null trials (items paired: %v), want ≤ α = %g (+3 SE: %.3f)", rate, trials, paired, alpha, bound)
		}
	}
}

// The faults of issue 44 on ci.toml's design are flagged (α = 0.01, the CI's): EMD at 1.1 ε
// moves unchanged words at ε 10 from 0.59 to 0.70 (+0.11), EMD releasing 5 % of its words
// unchanged moves ε 5 from 0.067 to 0.112 (+0.045); and a smaller fault, +0.025 at ε 5 (about
// twice the smallest change flagged there, 0.013). Each is flagged in at least 99 % of 200 trials
// (measured: 200/200, 200/200 and 199/200; +0.01 is flagged in 20 %).
// Mutant: with unchanged_share and its counts tested by Welch over repeats (the code before
// issue 44), the first two are flagged in 49 % and 23 % of trials (with 32 cells tested here;
// among ci.toml's 287, in none) and this fails.
func TestCompareCatchesTheIssuesFaultsBySimulation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		shift []float64
	}{
		{"EMD at 1.1 ε (ε 10: +0.11)", []float64{0, 0.11, 0, 0}},
		{"EMD releasing 5 % unchanged (ε 5: +0.045)", []float64{0, 0, 0.045, 0}},
		{"a smaller fault (ε 5: +0.025)", []float64{0, 0, 0.025, 0}},
	} {
		rate := simFlagRate(t, 200, 0.01, tc.shift, true)
		t.Logf("%s: flagged in %.3f of 200 trials", tc.name, rate)
		if rate < 0.99 {
			t.Errorf("%s: flagged in %.3f of 200 trials, want ≥ 0.99", tc.name, rate)
		}
	}
}
