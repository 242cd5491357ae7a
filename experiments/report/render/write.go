// Package render writes a run's tables and figures in the papers' layouts from its results.csv
// rows: the main, privacy and diagnostic tables as Markdown, CSV and LaTeX with their captions,
// the plots of each metric against ε, the privacy–utility frontier (on the attack's scale and on
// the empirical ε of the distinguishing game) and the calibration of nominal against empirical
// ε, each mechanism in its own style (SeriesStyle), the HTML tables of report.html, and the
// at-chance check of the scorers on the original texts.
package render

import (
	"bytes"
	"dptext/experiments/report"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"dptext/internal/atomicfile"
)

// Write renders a run's rows into dir: table.md, table.csv and table.tex (see the layout),
// summary.csv (every cell of the run with its intervals), and for each set a PNG and a PDF of each
// plot metric against ε (`<metric>-<set>.png`), of the frontier (`frontier-<set>.png`) when the
// layout names its axes, and with distinguish rows of the calibration (`distinguish-<k>-<set>`)
// and the frontier on the empirical axis (`frontier-empirical-<k>-<utility>-<set>`). Each file is written to a temporary file in dir and renamed into place,
// so a reader never sees half a file. The layout is validated first and then checked against
// the rows (every column scorer and reference set must occur). It returns the names of the
// files written, sorted.
func Write(dir string, rows []report.Row, layout Layout, caption Caption) ([]string, error) {
	if err := layout.Validate(); err != nil {
		return nil, err
	}
	s, err := report.Aggregate(rows, layout.scorerOrder(), layout.Level)
	if err != nil {
		return nil, err
	}
	if err := layout.checkData(s); err != nil {
		return nil, err
	}
	t := buildTables(s, layout)
	tableCSV, err := t.csv()
	if err != nil {
		return nil, err
	}
	summaryCSV, err := summaryCSV(s)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"table.md":    t.markdown(caption),
		"table.csv":   tableCSV,
		"table.tex":   t.tex(caption),
		"summary.csv": summaryCSV,
	}
	for _, set := range s.Sets() {
		for _, metric := range layout.PlotMetrics {
			f, ok, err := metricFigure(s, layout, set, metric)
			if err != nil {
				return nil, fmt.Errorf("report: plotting %s of set %s: %w", metric, set, err)
			}
			if ok {
				if err := addFigure(files, metric+"-"+set, f); err != nil {
					return nil, err
				}
			}
		}
		figs, err := calibrationFigures(s, set)
		if err != nil {
			return nil, fmt.Errorf("report: plotting the calibration of set %s: %w", set, err)
		}
		for name, f := range figs {
			if err := addFigure(files, name, f); err != nil {
				return nil, err
			}
		}
		figs, err = empiricalFrontierFigures(s, layout, set)
		if err != nil {
			return nil, fmt.Errorf("report: plotting the frontier on the empirical axis of set %s: %w", set, err)
		}
		for name, f := range figs {
			if err := addFigure(files, name, f); err != nil {
				return nil, err
			}
		}
		if layout.Frontier.Attack != "" {
			f, ok, err := frontierFigure(s, layout, set)
			if err != nil {
				return nil, fmt.Errorf("report: plotting the frontier of set %s: %w", set, err)
			}
			if ok {
				if err := addFigure(files, "frontier-"+set, f); err != nil {
					return nil, err
				}
			}
		}
	}
	names := slices.Sorted(maps.Keys(files))
	for _, name := range names {
		if err := writeAtomic(dir, name, files[name]); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// addFigure renders f as PNG and PDF under a file-system-safe form of base.
func addFigure(files map[string][]byte, base string, f *figure) error {
	base = safeName(base)
	for _, format := range []string{"png", "pdf"} {
		data, err := f.render(format)
		if err != nil {
			return fmt.Errorf("report: rendering %s.%s: %w", base, format, err)
		}
		files[base+"."+format] = data
	}
	return nil
}

// safeName keeps letters, digits, '.', '_' and '-' and replaces every other rune with '_'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '_' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

// writeAtomic writes data to dir/name so that a reader never sees a partial file.
func writeAtomic(dir, name string, data []byte) error {
	if err := atomicfile.WriteFile(filepath.Join(dir, name), data); err != nil {
		return fmt.Errorf("report: writing %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// summaryHeader is the header of summary.csv.
var summaryHeader = []string{"set", "mechanism", "epsilon", "scorer", "metric", "n", "mean", "sd", "t_low", "t_high",
	"pooled_correct", "pooled_total", "wilson_low", "wilson_high"}

// summaryCSV lists every cell with its t interval and, where `correct` and `total` rows exist,
// the Wilson interval of the proportion pooled over repeats, each row in its metric's own unit:
// the `correct` row gives the pooled counts and the interval scaled to the mean count per
// repeat (as the tables print it), the `accuracy` row the interval of the proportion.
func summaryCSV(s *report.Summary) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(summaryHeader); err != nil {
		return nil, err
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, c := range s.Cells {
		rec := []string{c.Set, c.Mechanism, c.Epsilon.String(), c.Scorer, c.Metric, strconv.Itoa(c.N()),
			num(c.Mean), num(c.SD), num(c.Mean - c.HalfWidth), num(c.Mean + c.HalfWidth), "", "", "", ""}
		if p, ok := s.Pooled(c.Key); ok {
			switch c.Metric {
			case report.MetricCorrect:
				scale := p.Total / float64(c.N())
				rec[10], rec[11], rec[12], rec[13] = num(p.Correct), num(p.Total), num(p.Low*scale), num(p.High*scale)
			case report.MetricAccuracy:
				rec[12], rec[13] = num(p.Low), num(p.High)
			}
		}
		if err := w.Write(rec); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}
