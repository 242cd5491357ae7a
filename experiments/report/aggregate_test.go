package report

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"dptext/internal/stats"
)

func TestAggregateMeanSDInterval(t *testing.T) {
	var rows []Row
	for rep, v := range []float64{4, 1, 3, 2} {
		rows = append(rows, Row{Set: "s", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 3 - rep, Scorer: "sr-nn", Metric: "accuracy", Value: v})
	}
	rows = append(rows, Row{Set: "s", Mechanism: "none", Scorer: "sr-nn", Metric: "accuracy", Value: 0.5})
	s, err := Aggregate(rows, nil, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := s.Cell(Key{"s", "emd", EpsilonOf(10), "sr-nn", "accuracy"})
	if !ok {
		t.Fatal("cell missing")
	}
	// Values 1..4: mean 2.5, sample sd √(5/3); t_{0.975, 3} = 3.182446 (t table).
	wantSD := math.Sqrt(5.0 / 3)
	if c.Mean != 2.5 || math.Abs(c.SD-wantSD) > 1e-12 || math.Abs(c.HalfWidth-3.182446*wantSD/2) > 1e-6 {
		t.Errorf("mean %v sd %v half-width %v; want 2.5, %v, %v", c.Mean, c.SD, c.HalfWidth, wantSD, 3.182446*wantSD/2)
	}
	if !reflect.DeepEqual(c.Repeats, []int{0, 1, 2, 3}) || !reflect.DeepEqual(c.Values, []float64{2, 3, 1, 4}) {
		t.Errorf("values not in repeat order: %v %v", c.Repeats, c.Values)
	}
	one, _ := s.Cell(Key{"s", "none", NoEpsilon, "sr-nn", "accuracy"})
	if one.N() != 1 || one.Mean != 0.5 || !math.IsNaN(one.SD) || !math.IsNaN(one.HalfWidth) {
		t.Errorf("single repeat: %+v, want mean 0.5 and NaN spread", one)
	}
}

func TestPooledCounts(t *testing.T) {
	rows := []Row{
		{Set: "s", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 0, Scorer: "a", Metric: "correct", Value: 15},
		{Set: "s", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 0, Scorer: "a", Metric: "total", Value: 20},
		{Set: "s", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 1, Scorer: "a", Metric: "correct", Value: 16},
		{Set: "s", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 1, Scorer: "a", Metric: "total", Value: 20},
	}
	s, err := Aggregate(rows, nil, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := s.Pooled(Key{"s", "emd", EpsilonOf(10), "a", "accuracy"})
	low, high := stats.Wilson(31, 40, 0.95)
	if !ok || p.Correct != 31 || p.Total != 40 || p.Low != low || p.High != high {
		t.Errorf("pooled = %+v, %v; want 31/40 in [%v, %v]", p, ok, low, high)
	}
	if _, ok := s.Pooled(Key{"s", "emd", EpsilonOf(10), "b", "accuracy"}); ok {
		t.Error("pooled counts for a scorer without rows")
	}
}

func TestAggregateOrder(t *testing.T) {
	rows := []Row{
		{Set: "b", Mechanism: "emd", Epsilon: EpsilonOf(10), Scorer: "z", Metric: "m2"},
		{Set: "b", Mechanism: "emd", Epsilon: EpsilonOf(30), Scorer: "y", Metric: "m1"},
		{Set: "b", Mechanism: "syntf", Epsilon: EpsilonOf(5), Scorer: "x", Metric: "m1"},
		{Set: "b", Mechanism: "none", Epsilon: NoEpsilon, Scorer: "z", Metric: "m1"},
		{Set: "b", Mechanism: "emd", Epsilon: EpsilonOf(20), Scorer: "x", Metric: "m1"},
		{Set: "b", Mechanism: "emd", Epsilon: EpsilonOf(10), Scorer: "z", Metric: "m1"},
		{Set: "b", Mechanism: "emd", Epsilon: EpsilonOf(10), Scorer: "x", Metric: "m1"},
		{Set: "a", Mechanism: "emd", Epsilon: EpsilonOf(10), Scorer: "x", Metric: "m1"},
		{Set: "b", Mechanism: "", Epsilon: NoEpsilon, Scorer: "split", Metric: "authors"},
	}
	s, err := Aggregate(rows, []string{"x", "y"}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Cells {
		got = append(got, c.String())
	}
	want := []string{
		"b///split/authors",
		"b/none//z/m1",
		"b/emd/30/y/m1",
		"b/emd/20/x/m1",
		"b/emd/10/x/m1",
		"b/emd/10/z/m2",
		"b/emd/10/z/m1",
		"b/syntf/5/x/m1",
		"a/emd/10/x/m1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAggregateRejectsDuplicateRepeat(t *testing.T) {
	r := Row{Set: "s", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 2, Scorer: "a", Metric: "correct", Value: 1}
	_, err := Aggregate([]Row{r, r}, nil, 0.95)
	if err == nil || !strings.Contains(err.Error(), "s/emd/10/a/correct repeat 2") {
		t.Fatalf("error %v does not name the duplicate cell", err)
	}
}
