package main

import (
	"context"
	"fmt"
	"io"

	"dptext/experiments"
	"dptext/mechanisms"
)

func cmdPrivacy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("privacy", stderr)
	emb := addEmbeddingFlags(fs, 30000)
	mech := fs.String("mechanism", "syntf", "mechanism (syntf)")
	epsList := fs.String("epsilons", "47.5", "comma-separated ε grid")
	n := fs.Int("n", 150, "output length n of SynTF")
	params := paramFlag{}
	fs.Var(params, "param", "mechanism parameter key=value (repeatable), e.g. s=0.3")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	if *mech != "syntf" {
		return usagef("--mechanism %q: only syntf has a vocabulary-wide bound to compute (emd: ε·N·EMD, expmech: ε·l)", *mech)
	}
	eps, err := parseFloats(*epsList)
	if err != nil {
		return usagef("--epsilons: %v", err)
	}
	store, err := emb.load(ctx, stderr)
	if err != nil {
		return err
	}
	opts := mechanisms.DefaultSynTFOptions()
	p := experiments.Params{File: "command line", Table: "params", Component: "syntf", Values: params}
	if err := p.Decode(&opts); err != nil {
		return err
	}
	opts.EllContext = ctx
	fmt.Fprintf(stderr, "computing ℓ over %d words × %d dimensions (|V|² ratings in blocks)\n", store.Len(), store.Dim())
	return mechanisms.PrintSynTFPrivacy(stdout, store, eps, *n, opts, 0)
}
