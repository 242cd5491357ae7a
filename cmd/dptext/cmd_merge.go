package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"dptext/experiments/rundir"
	"dptext/experiments/runner"
	"dptext/internal/filehash"
)

// parseShardFlags turns --shard (K/N, auto or empty) and --shards into a Shard.
func parseShardFlags(shard string, shards int) (rundir.Shard, error) {
	switch {
	case shard == "":
		if shards != 0 {
			return rundir.Shard{}, usagef("--shards %d: only with --shard auto", shards)
		}
		return rundir.Shard{}, nil
	case shard == "auto":
		if shards < 0 {
			return rundir.Shard{}, usagef("--shards %d: want at least 1", shards)
		}
		s, err := rundir.ShardFromEnv(os.Getenv, shards)
		if err != nil {
			return s, usagef("%v", err)
		}
		return s, nil
	}
	if shards != 0 {
		return rundir.Shard{}, usagef("--shards %d: only with --shard auto (--shard K/N names the count)", shards)
	}
	s, err := rundir.ParseShard(shard)
	if err != nil {
		return s, usagef("%v", err)
	}
	return s, nil
}

func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "merge", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one RUN_DIR (the --out of the shards)")
	}
	dir := pos[0]
	if err := runner.Merge(ctx, dir, runner.RunOptions{Jobs: 1, Log: stderr}); err != nil {
		return err
	}
	if table, err := filehash.ReadRegular(filepath.Join(dir, "table.md"), filehash.MaxStateBytes, "a table"); err == nil {
		fmt.Fprintf(stdout, "%s\n", table)
	}
	fmt.Fprintf(stdout, "merged: %s\n", filepath.Join(dir, "results.csv"))
	return nil
}
