package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"dptext/experiments/runconfig"
	"dptext/experiments/runner"
)

func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "check", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("want at least one CONFIG")
	}
	var bad []string
	for _, p := range pos {
		cfg, err := runconfig.LoadConfig(p)
		if err == nil {
			err = runconfig.CheckComponents(cfg)
		}
		if err == nil {
			// The values that depend on the data (set sizes, snippet lengths): checked on the
			// sets drawn from the corpus as `run` draws them.
			err = runner.CheckData(ctx, cfg, "", func(string, ...any) {})
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			bad = append(bad, p)
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%s)\n", p, runconfig.Describe(cfg))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d of %d configs invalid: %s", len(bad), len(pos), strings.Join(bad, ", "))
	}
	return nil
}
