package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"dptext/experiments/report"
	"dptext/experiments/runreport"
)

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "report", stderr)
	bench := fs.Bool("benchfmt", false, "print the results in Go's benchmark format (for benchstat) instead of rewriting tables and plots")
	metrics := fs.String("metrics", "accuracy,macro_f1,mean", "with --benchfmt: comma-separated `LIST` of metrics to print (empty: all)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one RUN_DIR")
	}
	if *bench {
		if err := runreport.CheckComplete(pos[0]); err != nil {
			return err
		}
		rows, err := report.ReadRowsFile(filepath.Join(pos[0], "results.csv"))
		if err != nil {
			return err
		}
		var keep []string
		if *metrics != "" {
			keep = strings.Split(*metrics, ",")
		}
		have := map[string]bool{}
		for _, r := range rows {
			if r.Mechanism != "" {
				have[r.Metric] = true
			}
		}
		explicit := false
		fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "metrics" })
		for _, m := range keep {
			if explicit && !have[m] {
				names := make([]string, 0, len(have))
				for n := range have {
					names = append(names, n)
				}
				sort.Strings(names)
				return usagef("--metrics: %q is not a metric of %s; its metrics: %s", m, pos[0], strings.Join(names, ", "))
			}
		}
		return report.WriteBenchFormat(stdout, rows, keep)
	}
	if err := runreport.Rereport(pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rewrote tables, plots and report.html in %s\n", pos[0])
	return nil
}
