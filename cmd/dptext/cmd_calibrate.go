package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"dptext/embeddings"
	"dptext/experiments/registry"
	"dptext/internal/rngs"
	"dptext/mechanisms/calibrate"
	"dptext/mechanisms/metricdp"
)

func cmdCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "calibrate", stderr)
	emb := addEmbeddingFlags(fs, 100000)
	epsList := fs.String("epsilons", "5,7.5,10,12.5,15,20,25,30", "comma-separated ε grid")
	words := fs.Int("words", 2000, "vocabulary words sampled uniformly by rank")
	seed := fs.Uint64("seed", 1, "random seed")
	draws := fs.Int("draws", 0, "also privatise each sampled word K times and print N_w (draws released unchanged) and S_w (distinct outputs), the calibration statistics of CMP (Feyisetan et al. 2020, §4.2); 0: off")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	switch {
	case *words < 1 || *words > maxCalibrateWords:
		return usagef("--words %d: want 1 to %d", *words, maxCalibrateWords)
	case *draws < 0:
		return usagef("--draws %d: want 0 (off) or more", *draws)
	case *draws > 0 && *words**draws > maxCalibrateDecodes:
		return usagef("--words × --draws = %d: at most %d decodes per ε", *words**draws, maxCalibrateDecodes)
	}
	eps, err := parseFloats(*epsList)
	if err != nil {
		return usagef("--epsilons: %v", err)
	}
	for _, e := range eps {
		if err := registry.Mechanisms["emd"].Epsilons.Check(e); err != nil {
			return usagef("--epsilons: emd: %v", err)
		}
	}
	store, err := emb.load(ctx, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "calibrating the emd mechanism on %d words × %d dimensions, %d sampled words per ε\n", store.Len(), store.Dim(), *words)
	rows, err := calibrate.EMD(store, eps, *words, rngs.New(*seed, "calibrate"), metricdp.DefaultEMDOptions())
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	head := []string{"ε", "unchanged", "mean cos"}
	for _, b := range calibrate.RankBuckets {
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
	if *draws > 0 {
		if err := printCMPCalibration(ctx, stdout, stderr, store, eps, *words, *draws, *seed); err != nil {
			return err
		}
	}
	return nil
}

// Limits of calibrate's counts, checked before the vectors are loaded: sampled words, and
// decodes per ε with --draws.
const (
	maxCalibrateWords   = 1_000_000
	maxCalibrateDecodes = 10_000_000
)

// printCMPCalibration prints N_w and S_w per ε over words sampled words, draws draws each.
func printCMPCalibration(ctx context.Context, stdout, stderr io.Writer, store *embeddings.Store, eps []float64, words, draws int, seed uint64) error {
	fmt.Fprintf(stderr, "N_w and S_w: %d sampled words × %d draws per ε\n", words, draws)
	rows, err := calibrate.CMP(store, eps, words, draws, rngs.New(seed, "calibrate/cmp"), metricdp.DefaultEMDOptions())
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "ε\tmedian N_w\tmean N_w\tmedian S_w\tmean S_w\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%.0f\t%.1f\t\n", strconv.FormatFloat(r.Epsilon, 'g', -1, 64), r.MedianNw, r.MeanNw, r.MedianSw, r.MeanSw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "N_w: of %d draws of a word, how many release the word itself; S_w: how many distinct words it is released as (cmp, and emd word by word).\n", draws)
	return nil
}
