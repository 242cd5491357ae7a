package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/experiments/runner"
	"dptext/experiments/runreport"
	"dptext/internal/filehash"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "run", stderr)
	jobs := fs.Int("jobs", 2, "cells run at once (results do not depend on it)")
	out := fs.String("out", "", "run `DIR` (default results/NAME/CONFIG-HASH; a rerun resumes it)")
	force := fs.Bool("force", false, "discard finished cells in the run directory and recompute everything, without the cache of privatised documents")
	shard := fs.String("shard", "", "run only shard `K/N` of the cells (K from 0), into a run folder the other shards share; auto: from the job array's environment (Slurm, Kubernetes Indexed Job, AWS Batch); then dptext merge RUN_DIR")
	shards := fs.Int("shards", 0, "with --shard auto: the number of shards where the environment does not say it (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX; or DPTEXT_SHARDS)")
	update := fs.Bool("update-baseline", false, "after the run, copy results.csv and tables to results/baselines/NAME/ (a deliberate, reviewed change)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one CONFIG, got %d arguments", len(pos))
	}
	if *jobs < 1 || *jobs > runconfig.MaxWorkers {
		return usagef("--jobs %d: want 1 to %d", *jobs, runconfig.MaxWorkers)
	}
	if *shards < 0 || *shards > rundir.MaxShards {
		return usagef("--shards %d: want 0 (from the environment) to %d", *shards, rundir.MaxShards)
	}
	cfg, err := runconfig.LoadConfig(pos[0])
	if err != nil {
		return err
	}
	opts := runner.RunOptions{OutDir: *out, Jobs: *jobs, Force: *force, Log: stderr}
	if opts.Shard, err = parseShardFlags(*shard, *shards); err != nil {
		return err
	}
	if opts.Shard.Sharded() && *update {
		return usagef("--update-baseline: a shard writes no results.csv (dptext merge does)")
	}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		opts.Progress = stderr
	}
	dir, err := runner.Run(ctx, cfg, opts)
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %s (no results.csv or tables yet). To resume, run the same command again: dptext run %s",
			errInterrupted, keptCells(dir, opts.Shard), strings.Join(args, " "))
	}
	if err == nil && opts.Shard.Sharded() {
		fmt.Fprintf(stdout, "shard %s complete: %s (dptext merge %s once every shard is complete)\n", opts.Shard, dir, dir)
		return nil
	}
	if err != nil {
		if man, merr := rundir.ReadManifest(dir); merr == nil && man.Status == rundir.StatusFailed && man.Error == err.Error() {
			return fmt.Errorf("%w\n(run directory %s; its manifest.json says how it ended)", err, dir)
		}
		return err
	}
	table, err := filehash.ReadRegular(filepath.Join(dir, "table.md"), filehash.MaxStateBytes, "a table")
	if err == nil {
		fmt.Fprintf(stdout, "%s\n", table)
	}
	fmt.Fprintf(stdout, "results: %s\n", dir)
	if *update {
		dst := filepath.Join("results", "baselines", cfg.Name)
		if err := runreport.CopyBaseline(dir, dst); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "baseline updated: %s (commit it deliberately)\n", dst)
	}
	return nil
}

// keptCells says what an interrupted run or shard s (zero: the whole run) in dir kept, from
// its own manifest (a shard's is shards/K-of-N.json).
func keptCells(dir string, s rundir.Shard) string {
	man, err := rundir.ReadManifest(dir)
	if s.Sharded() {
		man, err = nil, os.ErrNotExist
		mans, _ := rundir.ShardManifests(dir)
		for _, m := range mans {
			if m.Shard != nil && *m.Shard == s {
				man, err = m, nil
			}
		}
	}
	if err != nil || man.Status != rundir.StatusInterrupted || man.Cells == 0 {
		return "nothing was computed yet"
	}
	return fmt.Sprintf("%d of %d cells are finished and kept in %s", man.CellsDone, man.Cells, filepath.Join(dir, "cells"))
}
