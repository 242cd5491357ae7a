package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"dptext/experiments/registry"
	"dptext/mechanisms/audit"
)

func cmdAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "audit", stderr)
	// 30,000 words: an EMD audit at the defaults takes about 12 s of CPU (30 s wall on the
	// shared 2-core machine) against 49 s of CPU over 100,000 words.
	emb := addEmbeddingFlags(fs, 30000)
	def := audit.DefaultOptions()
	mech := addMechanismFlags(fs, "", "mechanism `NAME`, see dptext list (required)", "param")
	claim := fs.Float64("claim", math.NaN(), "per-unit ε to test (default: the mechanism's own ε)")
	samples := fs.Int("samples", def.Samples, "K: outputs per input (sampled word tests) and runs per document (games), for each half")
	maxSamples := fs.Int("max-samples", def.MaxSamples, "adaptive K: a sampled word test whose claim is above its ceiling draws up to this many outputs per input (0: off)")
	alpha := fs.Float64("alpha", def.Alpha, "family-wise error rate of all sampled lower bounds together")
	pairs := fs.Int("pairs", def.Pairs, "word pairs of each kind (nearest, random, far)")
	seed := fs.Uint64("seed", def.Seed, "random seed of the audit (it releases nothing)")
	inline := fs.String("params", "", `mechanism parameters as a TOML inline table body, e.g. 'order = "keep", oov = "drop"'`)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || mech.name == "" {
		return usagef("--mechanism is required; no other arguments")
	}
	mech.inline = *inline
	o := audit.DefaultOptions()
	o.Samples, o.Alpha, o.Pairs, o.Seed, o.MaxSamples = *samples, *alpha, *pairs, *seed, *maxSamples
	claimSet := false // NaN is the default, so a --claim NaN given is told apart by Visit
	fs.Visit(func(f *flag.Flag) { claimSet = claimSet || f.Name == "claim" })
	if claimSet {
		if !(*claim >= 0) || math.IsInf(*claim, 0) {
			return usagef("--claim %v: want a finite number ≥ 0", *claim)
		}
		o.Claim, o.ClaimSet = *claim, true
	}
	if o.Samples < 10 || o.Samples > audit.SamplesLimit {
		return usagef("--samples %d: want 10 to %d", o.Samples, audit.SamplesLimit)
	}
	if o.MaxSamples < 0 || o.MaxSamples > audit.SamplesLimit {
		return usagef("--max-samples %d: want 0 (off) to %d", o.MaxSamples, audit.SamplesLimit)
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return usagef("--alpha %v: want a value in (0, 1)", o.Alpha)
	}
	if o.Pairs < 1 || o.Pairs > audit.PairsLimit {
		return usagef("--pairs %d: want 1 to %d", o.Pairs, audit.PairsLimit)
	}
	mo, err := mech.decode()
	if err != nil {
		return err
	}
	store, err := emb.load(ctx, stderr)
	if err != nil {
		return err
	}
	env := &registry.Env{Embeddings: store, Workers: 2}
	if mo.Needs().TrainingCorpus {
		if env.Corpus, err = defaultTrainingCorpus(ctx, stderr); err != nil {
			return err
		}
	}
	m, err := mo.Build(env, mech.epsilon.Value())
	if err != nil {
		return err
	}
	target, err := audit.NewTarget(mech.name, m, store)
	if err != nil {
		return err
	}
	start := time.Now()
	o.Progress = auditProgress(stderr, mech.name, start)
	rep, err := audit.Run(target, o)
	if err != nil {
		return err
	}
	rep.Write(stdout, mech.name, mech.epsilon.Value(), target.Store.Len(), time.Since(start))
	if v := rep.Violations(); len(v) > 0 {
		return fmt.Errorf("%d test(s) exceed the claim ε = %.6g; the largest: %s", len(v), rep.Claim, v[0].Describe())
	}
	return nil
}

// auditProgress reports the audit's steps done with the time they took and an estimate of the
// time left (at the rate so far): on one updated line on a terminal, else one line at most
// every 10 seconds, so that a long audit never runs silent.
func auditProgress(stderr io.Writer, name string, start time.Time) func(done, total int) {
	f, ok := stderr.(*os.File)
	terminal := ok && isTerminal(f)
	var last time.Time
	return func(done, total int) {
		now := time.Now()
		if !terminal && done < total && now.Sub(last) < 10*time.Second {
			return
		}
		last = now
		spent := now.Sub(start)
		left := time.Duration(float64(spent) * float64(total-done) / float64(max(done, 1)))
		line := fmt.Sprintf("audit %s: %d/%d steps, %s so far, about %s left", name, done, total, spent.Round(time.Second), left.Round(time.Second))
		switch {
		case terminal && done == total:
			fmt.Fprintf(stderr, "\r%s\n", line)
		case terminal:
			fmt.Fprintf(stderr, "\r%s", line)
		default:
			fmt.Fprintln(stderr, line)
		}
	}
}
