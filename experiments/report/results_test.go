package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestRowsRoundTrip(t *testing.T) {
	rows := []Row{
		{Set: "20", Mechanism: "none", Repeat: 0, Scorer: "sr-nn", Metric: "correct", Value: 12},
		{Set: "20", Mechanism: "emd", Epsilon: EpsilonOf(12.5), Repeat: 3, Scorer: "fasttext", Metric: "accuracy", Value: 0.1 + 0.2},
	}
	var b bytes.Buffer
	if err := WriteRows(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "set,mechanism,epsilon,repeat,scorer,metric,value\n20,none,,0,") {
		t.Fatalf("unexpected CSV:\n%s", b.String())
	}
	got, err := ReadRows(&b, "results.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Epsilon.Set() || got[1].Value != 0.1+0.2 {
		t.Fatalf("round trip lost precision: %+v", got)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("got %+v, want %+v", got, rows)
	}
}

func TestReadRowsNamesFileAndLine(t *testing.T) {
	in := "set,mechanism,epsilon,repeat,scorer,metric,value\n20,emd,ten,0,sr-nn,correct,3\n"
	_, err := ReadRows(strings.NewReader(in), "r.csv")
	if err == nil || !strings.Contains(err.Error(), "r.csv: line 2") {
		t.Fatalf("error %v does not name file and line", err)
	}
}
