package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// WriteBenchFormat writes rows in the Go benchmark format, one line per (cell, repeat):
//
//	BenchmarkRun/set=20/mech=emd/eps=10/scorer=koppel11 1 0.26 accuracy 5 correct
//
// so that `benchstat old.txt new.txt` compares two runs cell by cell with its own
// significance test over the repeats. Only finite values of the named metrics are written
// (all metrics when metrics is empty); set facts (mechanism "") are left out. Metric names
// become units, with spaces replaced.
func WriteBenchFormat(w io.Writer, rows []Row, metrics []string) error {
	keep := map[string]bool{}
	for _, m := range metrics {
		keep[m] = true
	}
	type line struct {
		name string
		rep  int
	}
	var order []line
	values := map[line][]string{}
	for _, r := range rows {
		if r.Mechanism == "" || math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || (len(keep) > 0 && !keep[r.Metric]) {
			continue
		}
		eps := r.Epsilon.String()
		if eps == "" {
			eps = "none"
		}
		l := line{fmt.Sprintf("BenchmarkRun/set=%s/mech=%s/eps=%s/scorer=%s", r.Set, r.Mechanism, eps, r.Scorer), r.Repeat}
		if _, ok := values[l]; !ok {
			order = append(order, l)
		}
		values[l] = append(values[l], fmt.Sprintf("%v %s", r.Value, strings.ReplaceAll(r.Metric, " ", "_")))
	}
	for _, l := range order {
		if _, err := fmt.Fprintf(w, "%s 1 %s\n", strings.ReplaceAll(l.name, " ", "_"), strings.Join(values[l], " ")); err != nil {
			return err
		}
	}
	return nil
}
