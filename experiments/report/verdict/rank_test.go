package verdict

import (
	"math"
	"math/rand/v2"
	"testing"

	"dptext/experiments/report"
	"dptext/internal/rngs"
)

// rankModel is a simulated ranking attacker: at ε the true author's score on an item is
// μ(ε) = 3·σ(2(ln ε − ln 4)) plus its author's shift (sd 0.2) plus N(0, 1), every other of
// the n − 1 candidates' scores N(0, 1); the attacker names the highest. An item's accuracy is
// 1 when the true author scores highest, its reciprocal rank 1/(1 + the number of candidates
// above it), both from the same draws. Utility is model's (floor 0.2, centre 2).
type rankModel struct {
	n    int
	util model
}

func (m rankModel) mu(eps float64) float64 { return 3 * sigmoid(2*(math.Log(eps)-math.Log(4))) }

// population returns the population accuracy and mean reciprocal rank at ε: with x the true
// author's score (N(μ, 1 + 0.2²) over authors and items) and p = P(N(0,1) > x), the number
// above it is Binomial(n − 1, p), so accuracy = E[(1 − p)^(n−1)] and reciprocal rank =
// E[(1 − (1 − p)^n)/(n·p)] (midpoint rule over x, 20,001 points in ±10 sd).
func (m rankModel) population(eps float64) (acc, rr float64) {
	sd := math.Sqrt(1 + 0.04)
	mu := m.mu(eps)
	const k = 20001
	h := 20 * sd / k
	for i := range k {
		x := mu - 10*sd + (float64(i)+0.5)*h
		w := math.Exp(-0.5*((x-mu)/sd)*((x-mu)/sd)) / (sd * math.Sqrt(2*math.Pi)) * h
		p := 0.5 * math.Erfc(x/math.Sqrt2)
		acc += w * math.Pow(1-p, float64(m.n-1))
		if p < 1e-12 {
			rr += w
		} else {
			rr += w * (1 - math.Pow(1-p, float64(m.n))) / (float64(m.n) * p)
		}
	}
	return acc, rr
}

// rankStudy scores one simulated study (authors × per items) on grid: every point holds the
// items' accuracy ("acc") and reciprocal rank ("rr") from the same draws, and their utility.
func rankStudy(rng *rand.Rand, m rankModel, authors, per int, grid []float64) (points []CurvePoint, cluster []int) {
	s := newSimStudy(rng, authors, per)
	shift := make([]float64, authors)
	for a := range shift {
		shift[a] = 0.2 * rng.NormFloat64()
	}
	for _, eps := range grid {
		acc, rr, u := make([]float64, s.nItems), make([]float64, s.nItems), make([]float64, s.nItems)
		for i, c := range s.cluster {
			own := m.mu(eps) + shift[c] + rng.NormFloat64()
			above := 0
			for range m.n - 1 {
				if rng.NormFloat64() > own {
					above++
				}
			}
			if above == 0 {
				acc[i] = 1
			}
			rr[i] = 1 / float64(1+above)
			u[i] = m.util.utility(eps) + s.uEff[c] + 0.15*rng.NormFloat64()
		}
		points = append(points, CurvePoint{Mechanism: "m", Epsilon: report.EpsilonOf(eps), Scores: map[string][]float64{"acc": acc, "rr": rr, "util": u}})
	}
	return points, s.cluster
}

// rankWidths runs studies of n authors × per items, the authors the n candidates, grid ε 16,
// 8, 4, 2, 1, 0.5, matched at the population accuracy and reciprocal
// rank of ε = 2 (the same privacy: the same true utility), and returns, per measure ("acc",
// "rr", or the rr axis fed the accuracy items: mutant), the mean width of the 95 % interval
// of the matched utility over studies where it is reached, and the share of studies whose
// interval covers the true utility.
func rankWidths(t *testing.T, studies, n, per int, rrItems string) (width, coverage map[string]float64) {
	m := rankModel{n: n, util: model{floor: 0.2, utilCentre: 2}}
	accLevel, rrLevel := m.population(2)
	truth := m.util.utility(2)
	grid := []float64{16, 8, 4, 2, 1, 0.5}
	rng := rngs.New(33, "rank-widths")
	width, coverage = map[string]float64{}, map[string]float64{}
	reached := map[string]int{}
	for range studies {
		points, cluster := rankStudy(rng, m, n, per, grid)
		for _, axis := range []struct{ name, scores string }{{"acc", "acc"}, {"rr", rrItems}} {
			ps := make([]CurvePoint, len(points))
			for j, p := range points {
				ps[j] = p
				ps[j].Scores = map[string][]float64{"att": p.Scores[axis.scores], "util": p.Scores["util"]}
			}
			level := accLevel
			if axis.name == "rr" {
				level = rrLevel
			}
			spec := Spec{Attack: "att", Levels: []float64{level}, LevelNames: []string{"x"}, Utilities: []string{"util"},
				Replicates: 1000, Confidence: 0.95, Alpha: 0.05}
			res, err := Matched(spec, cluster, n, ps, rngs.New(33, "rank-widths/bootstrap"))
			if err != nil {
				t.Fatal(err)
			}
			c := res.Cells[0]
			if c.Status != StatusReached || math.IsNaN(c.Low) {
				continue
			}
			reached[axis.name]++
			width[axis.name] += c.High - c.Low
			if c.Low <= truth && truth <= c.High {
				coverage[axis.name]++
			}
		}
	}
	for k, r := range reached {
		width[k] /= float64(r)
		coverage[k] /= float64(studies)
	}
	return width, coverage
}

// Lower-variance matching (issue 33): on the same simulated studies, matching on the true
// author's reciprocal rank gives the matched utility an interval narrower than matching on
// 0/1 accuracy at the same privacy, and both still cover the truth. Over 200 studies of 30
// authors × 14 items (the size of configs/mechanisms.toml; deterministic, fixed seed)
// measured: mean width 0.116 on accuracy, 0.095 on reciprocal rank (ratio 0.823; docs/statistics.md's
// verdict section states it), coverage 0.950 and 0.955. The test requires the ratio below 0.9
// and both coverages ≥ 0.9 (binomial(200, 0.95) falls below 0.9 with probability < 0.2 %).
// With 8 authors × 52 items (fewer candidates to rank, fewer clusters: the authors' own
// variation weighs more) the gain is small: measured 0.157 and 0.150 (ratio 0.954), coverage
// 0.960 and 0.935; the test requires a ratio below 1 there. The mutant, the reciprocal-rank axis fed the 0/1 items (a
// measure that is 0/1 after all, matched at the reciprocal rank's level), covers the truth in
// none of the studies (measured 0.000) and fails (run below).
func TestReciprocalRankNarrowsMatchedIntervals(t *testing.T) {
	width, coverage := rankWidths(t, 200, 30, 14, "rr")
	ratio := width["rr"] / width["acc"]
	t.Logf("mean width of the matched utility's 95 %% interval: accuracy %.4f, reciprocal rank %.4f (ratio %.3f); coverage %.3f and %.3f",
		width["acc"], width["rr"], ratio, coverage["acc"], coverage["rr"])
	if !(ratio < 0.9) || coverage["acc"] < 0.9 || coverage["rr"] < 0.9 {
		t.Errorf("reciprocal rank: width ratio %.3f (want < 0.9), coverage accuracy %.3f, reciprocal rank %.3f (want ≥ 0.9)", ratio, coverage["acc"], coverage["rr"])
	}
	sw, sc := rankWidths(t, 200, 8, 52, "rr")
	t.Logf("8 authors × 52 items: accuracy %.4f, reciprocal rank %.4f (ratio %.3f); coverage %.3f and %.3f", sw["acc"], sw["rr"], sw["rr"]/sw["acc"], sc["acc"], sc["rr"])
	if !(sw["rr"] < sw["acc"]) || sc["acc"] < 0.9 || sc["rr"] < 0.9 {
		t.Errorf("8 authors: width ratio %.3f (want < 1), coverage %.3f and %.3f (want ≥ 0.9)", sw["rr"]/sw["acc"], sc["acc"], sc["rr"])
	}
	mw, mc := rankWidths(t, 200, 30, 14, "acc")
	t.Logf("mutant: width ratio %.3f, coverage %.3f", mw["rr"]/mw["acc"], mc["rr"])
	if mratio := mw["rr"] / mw["acc"]; mratio < 0.9 && mc["rr"] >= 0.9 {
		t.Errorf("mutant (0/1 items on the reciprocal-rank axis) passes: width ratio %.3f, coverage %.3f", mratio, mc["rr"])
	}
}
