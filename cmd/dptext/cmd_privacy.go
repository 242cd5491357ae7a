package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"dptext/experiments/registry"
	"dptext/internal/configfile"
)

func cmdPrivacy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "privacy", stderr)
	emb := addEmbeddingFlags(fs, 30000)
	mech := fs.String("mechanism", "syntf", "mechanism (syntf)")
	epsList := fs.String("epsilons", "47.5", "comma-separated ε grid")
	n := fs.Int("n", 150, "output length n of SynTF")
	params := newParamFlag()
	fs.Var(params, "param", "mechanism parameter key=value (repeatable), e.g. s=0.3")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments, got %q", pos)
	}
	entry, ok := registry.Mechanisms[*mech]
	if !ok || entry.PrivacyTable == nil {
		var have []string
		for _, name := range registry.MechanismNames() {
			if registry.Mechanisms[name].PrivacyTable != nil {
				have = append(have, name)
			}
		}
		return usagef("--mechanism %q: has no vocabulary-wide bound to compute (its bound is in dptext list); those that have: %s", *mech, strings.Join(have, ", "))
	}
	if *n < 1 || *n > configfile.MaxCount {
		return usagef("--n %d: want 1 to %d", *n, configfile.MaxCount)
	}
	eps, err := parseFloats(*epsList)
	if err != nil {
		return usagef("--epsilons: %v", err)
	}
	for _, e := range eps {
		// εn and (ε+ln η)n of an ε the mechanism cannot take printed +Inf (--epsilons 1e308).
		if err := entry.Epsilons.Check(e); err != nil {
			return usagef("--epsilons: %v", err)
		}
	}
	store, err := emb.load(ctx, stderr)
	if err != nil {
		return err
	}
	p, err := configfile.ParseParams("command line", *mech, params.String())
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "computing ℓ over %d words × %d dimensions (|V|² ratings in blocks)\n", store.Len(), store.Dim())
	return entry.PrivacyTable(ctx, stdout, store, eps, *n, p)
}
