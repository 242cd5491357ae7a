package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"dptext/experiments"
	"dptext/mechanisms"
	"dptext/rngs"
)

func cmdCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", stderr)
	emb := addEmbeddingFlags(fs, 100000)
	epsList := fs.String("epsilons", "5,7.5,10,12.5,15,20,25,30", "comma-separated ε grid")
	words := fs.Int("words", 2000, "vocabulary words sampled uniformly by rank")
	seed := fs.Uint64("seed", 1, "random seed")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	eps, err := parseFloats(*epsList)
	if err != nil {
		return usagef("--epsilons: %v", err)
	}
	for _, e := range eps {
		if err := experiments.Mechanisms["emd"].Epsilons.Check(e); err != nil {
			return usagef("--epsilons: emd: %v", err)
		}
	}
	store, err := emb.load(ctx, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "calibrating the emd mechanism on %d words × %d dimensions, %d sampled words per ε\n", store.Len(), store.Dim(), *words)
	rows, err := mechanisms.CalibrateEMD(store, eps, *words, rngs.New(*seed, "calibrate"), mechanisms.DefaultEMDOptions())
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	head := []string{"ε", "unchanged", "mean cos"}
	for _, b := range mechanisms.EMDRankBuckets {
		head = append(head, "rank "+b.Label)
	}
	head = append(head, "mean radius")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range rows {
		cells := []string{strconv.FormatFloat(r.Epsilon, 'g', -1, 64), fmt.Sprintf("%.3f", r.UnchangedShare), fmt.Sprintf("%.3f", r.MeanCosine)}
		for _, s := range r.RankShares {
			cells = append(cells, fmt.Sprintf("%.3f", s))
		}
		cells = append(cells, fmt.Sprintf("%.2f", r.MeanNoiseRadius))
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "unchanged: share of sampled words decoded to themselves; rank k: share whose output is the input's k-th nearest neighbour (0 = itself).")
	fmt.Fprintln(stdout, "Choose a grid whose top ε leaves almost every word unchanged and whose bottom ε changes most of them.")
	return nil
}
