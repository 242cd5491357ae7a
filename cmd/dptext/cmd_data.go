package main

import (
	"context"
	"fmt"
	"io"

	"dptext/internal/datasets"
)

func cmdData(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "data", stderr)
	dir := fs.String("dir", "", "data cache `DIR` (default $"+datasets.EnvDataDir+", else the user cache dir + /dptext)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	if *dir == "" {
		if *dir, err = datasets.DefaultCacheDir(); err != nil {
			return err
		}
	}
	for _, n := range datasets.Names() {
		p, err := datasets.Ensure(ctx, *dir, n, stderr)
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("interrupted while fetching %s: its partial download was removed (datasets listed above are complete); run `dptext data` again to fetch the rest: %w", n, ctx.Err())
		}
		if err != nil {
			return err
		}
		where := p.Dir
		if where == "" && p.Vectors != nil {
			where = "(in memory only: the cache could not be written; the next command fetches again)"
		}
		fmt.Fprintf(stdout, "%-16s %s\n", n, where)
	}
	return nil
}
