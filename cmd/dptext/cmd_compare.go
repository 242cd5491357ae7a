package main

import (
	"context"
	"fmt"
	"io"

	"dptext/experiments/runreport"
)

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "compare", stderr)
	alpha := fs.Float64("alpha", 0.01, "family-wise false-alarm rate over all cells")
	power := fs.Bool("power", false, "also print, per metric, the smallest change flagged at the baseline's size")
	figure := fs.String("figure", "", "also write the figure of what moved (each cell's change against its band) to this .png or .pdf file")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want BASELINE_DIR and RUN_DIR")
	}
	moved, text, err := runreport.CompareRuns(pos[0], pos[1], *alpha)
	if err != nil {
		return err
	}
	if *figure != "" {
		if err := runreport.CompareFigure(pos[0], pos[1], *alpha, *figure); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, text)
	if *power {
		p, err := runreport.ComparePower(pos[0], *alpha)
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, p)
	}
	if moved {
		return fmt.Errorf("the run moved beyond tolerance from the baseline %s", pos[0])
	}
	return nil
}
