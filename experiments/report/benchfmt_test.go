package report

import (
	"bytes"
	"math"
	"testing"
)

func TestWriteBenchFormat(t *testing.T) {
	rows := []Row{
		{Set: "20", Scorer: "split", Metric: "n_words", Value: 420},
		{Set: "20", Mechanism: "none", Repeat: 0, Scorer: "sr-nn", Metric: "accuracy", Value: 0.6},
		{Set: "20", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 1, Scorer: "sr-nn", Metric: "accuracy", Value: 0.25},
		{Set: "20", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 1, Scorer: "sr-nn", Metric: "correct", Value: 5},
		{Set: "20", Mechanism: "emd", Epsilon: EpsilonOf(10), Repeat: 1, Scorer: "cosine", Metric: "mean", Value: math.NaN()},
	}
	var b bytes.Buffer
	if err := WriteBenchFormat(&b, rows, nil); err != nil {
		t.Fatal(err)
	}
	want := "BenchmarkRun/set=20/mech=none/eps=none/scorer=sr-nn 1 0.6 accuracy\n" +
		"BenchmarkRun/set=20/mech=emd/eps=10/scorer=sr-nn 1 0.25 accuracy 5 correct\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteBenchFormat(&b, rows, []string{"correct"})
	if b.String() != "BenchmarkRun/set=20/mech=emd/eps=10/scorer=sr-nn 1 5 correct\n" {
		t.Fatalf("metric filter: %q", b.String())
	}
}
