package render

import (
	"bytes"
	"dptext/experiments/report"
	"math"
	"os"
	"testing"
)

// fixtureRows is a fixed, hand-made run shaped like Table 1 of Fernandes et al.: two sets, the
// mechanisms none and emd (ε = 30 … 10), four scorers, five repeats, privacy and diagnostic rows
// and set facts. Counts follow the paper's numbers plus a small deterministic wobble per repeat.
func fixtureRows() []report.Row {
	paper := map[string]map[string][]float64{ // set → scorer → none, 30, 25, 20, 15, 10
		"20": {"sr-nn": {12, 8, 8, 5, 2, 0}, "sr-knn-topic": {16, 18, 18, 11, 11, 15},
			"koppel11": {15, 16, 14, 11, 12, 11}, "fasttext": {18, 18, 17, 16, 17, 19}},
		"50": {"sr-nn": {19, 19, 17, 12, 9, 1}, "sr-knn-topic": {36, 37, 34, 28, 22, 24},
			"koppel11": {27, 29, 24, 19, 13, 10}, "fasttext": {43, 43, 41, 42, 42, 43}},
	}
	scorers := []string{"sr-nn", "sr-knn-topic", "koppel11", "fasttext"}
	epsilons := []float64{math.NaN(), 30, 25, 20, 15, 10}
	words := map[string]float64{"20": 420, "50": 402}
	var rows []report.Row
	for _, set := range []string{"20", "50"} {
		docs := map[string]float64{"20": 20, "50": 50}[set]
		for _, f := range []struct {
			metric string
			value  float64
		}{{"authors", docs}, {"topics", 2}, {"n_words", words[set]}, {"eval_docs", docs}, {"topic_train_docs", 448}} {
			rows = append(rows, report.Row{Set: set, Scorer: report.SplitScorer, Metric: f.metric, Value: f.value})
		}
		for ei, eps := range epsilons {
			mech := "emd"
			if math.IsNaN(eps) {
				mech = "none"
			}
			for rep := range 5 {
				for si, sc := range scorers {
					wobble := 0.0
					if mech != "none" {
						wobble = float64((rep*3+si+ei)%5 - 2)
					}
					correct := math.Max(0, math.Min(docs, paper[set][sc][ei]+wobble))
					for _, m := range []struct {
						metric string
						value  float64
					}{{"correct", correct}, {"total", docs}, {"accuracy", correct / docs}} {
						rows = append(rows, report.Row{Set: set, Mechanism: mech, Epsilon: epsOrNone(eps), Repeat: rep, Scorer: sc, Metric: m.metric, Value: m.value})
					}
				}
				if mech == "emd" {
					rows = append(rows,
						report.Row{Set: set, Mechanism: mech, Epsilon: epsOrNone(eps), Repeat: rep, Scorer: report.PrivacyScorer, Metric: "epsilon_doc", Value: eps * words[set]},
						report.Row{Set: set, Mechanism: mech, Epsilon: epsOrNone(eps), Repeat: rep, Scorer: report.MechanismScorer, Metric: "unchanged_share",
							Value: 1 - 5/eps + 0.01*float64(rep%3)})
				}
			}
		}
	}
	return rows
}

// fixtureLayout is the default layout with the paper's numbers of the 20-author set's SRauth
// column and a frontier of DRauth against DRtopic.
func fixtureLayout() Layout {
	l := DefaultLayout()
	l.References = []Reference{{Set: "20", Label: "SRauth", Authors: 20, Values: map[string]float64{
		"none": 12, "30": 8, "25": 8, "20": 5, "15": 2, "10": 0}}}
	l.Frontier.Attack, l.Frontier.Utility = "koppel11", "fasttext"
	return l
}

// epsOrNone is ε = v, absent for NaN (the fixtures' mark of a mechanism without ε).
func epsOrNone(v float64) report.Epsilon {
	if math.IsNaN(v) {
		return report.NoEpsilon
	}
	return report.EpsilonOf(v)
}

// fixtureCSV is fixtureRows as results.csv, for the tests of experiments/report/compare (which cannot
// import render's test files): go test ./experiments/report/render -update rewrites it.
const fixtureCSV = "testdata/fixture-results.csv"

// The committed fixtureCSV holds exactly fixtureRows, so experiments/report/compare tests on the same run;
// a changed fixture (mutant: any edit of fixtureRows) fails here until -update rewrites it.
func TestFixtureCSVHoldsFixtureRows(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteRows(&b, fixtureRows()); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(fixtureCSV, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(fixtureCSV)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("%s differs from fixtureRows: run go test ./experiments/report/render -run TestFixtureCSVHoldsFixtureRows -update", fixtureCSV)
	}
	back, err := report.ReadRows(bytes.NewReader(got), fixtureCSV)
	if err != nil {
		t.Fatal(err)
	}
	if want := fixtureRows(); len(back) != len(want) {
		t.Fatalf("%s reads back %d rows, want %d", fixtureCSV, len(back), len(want))
	}
	for i, r := range fixtureRows() {
		if back[i] != r {
			t.Fatalf("%s row %d reads back as %+v, want %+v", fixtureCSV, i+1, back[i], r)
		}
	}
}
