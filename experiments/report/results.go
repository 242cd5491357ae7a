// Package report holds a run's results.csv: its rows (read, written, and in Go benchmark format
// for benchstat), ε's one type, the metric and task names, and the cell summaries over repeats
// (mean, spread, interval) that the rest builds on. Its subpackages, which it never imports,
// render the papers' tables and plots (render), check a run against a baseline (compare) and
// compare mechanisms at matched privacy (verdict); all of it is regenerated from results.csv.
package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"dptext/internal/filehash"
)

// Header is the first line of every results.csv.
var Header = []string{"set", "mechanism", "epsilon", "repeat", "scorer", "metric", "value"}

// Row is one count or score of one cell: a (set, mechanism, ε, repeat, scorer) combination.
// Epsilon is absent for mechanisms without ε (such as "none"); it is written as an empty field.
type Row struct {
	Set, Mechanism string
	Epsilon        Epsilon
	Repeat         int
	Scorer, Metric string
	Value          float64
}

// Record returns the CSV fields of r, numbers at full precision.
func (r Row) Record() []string {
	return []string{r.Set, r.Mechanism, r.Epsilon.String(), strconv.Itoa(r.Repeat), r.Scorer, r.Metric,
		strconv.FormatFloat(r.Value, 'g', -1, 64)}
}

// WriteRows writes the header and rows as CSV.
func WriteRows(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(r.Record()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadRows parses a results.csv; name is used in errors (file name), which also give the line.
func ReadRows(r io.Reader, name string) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(Header)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: reading header: %w", name, err)
	}
	for i, h := range Header {
		if head[i] != h {
			return nil, fmt.Errorf("%s: line 1: header column %d is %q, want %q (header must be %v)", name, i+1, head[i], h, Header)
		}
	}
	var rows []Row
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		row := Row{Set: rec[0], Mechanism: rec[1], Scorer: rec[4], Metric: rec[5]}
		if row.Epsilon, err = ParseEpsilon(rec[2]); err != nil {
			return nil, fmt.Errorf("%s: line %d: epsilon %q is not a number", name, line, rec[2])
		}
		if row.Repeat, err = strconv.Atoi(rec[3]); err != nil {
			return nil, fmt.Errorf("%s: line %d: repeat %q is not an integer", name, line, rec[3])
		}
		if row.Value, err = strconv.ParseFloat(rec[6], 64); err != nil {
			return nil, fmt.Errorf("%s: line %d: value %q is not a number", name, line, rec[6])
		}
		rows = append(rows, row)
	}
}

// ReadRowsFile reads a results.csv from disk.
func ReadRowsFile(path string) ([]Row, error) {
	data, err := filehash.ReadRegular(path, filehash.MaxStateBytes, "a results.csv")
	if err != nil {
		return nil, err
	}
	return ReadRows(bytes.NewReader(data), path)
}
