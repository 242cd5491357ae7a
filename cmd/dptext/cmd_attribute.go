package main

import (
	"context"
	"fmt"
	"io"

	"dptext/experiments/attribution"
	"dptext/experiments/registry"
	"dptext/internal/learn"
)

func cmdAttribute(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(ctx, "attribute", stderr)
	emb := addEmbeddingFlags(fs, 100000)
	attacker := fs.String("attacker", "koppel11", "attacker `NAME` (see dptext list)")
	input := fs.String("input", "", "PAN collection, problem folder, or older meta-file.json folder: `DIR` (required)")
	output := fs.String("output", "", "`DIR` for the answers (required)")
	mech := addMechanismFlags(fs, "", "privatise the unknown texts with this mechanism `NAME` first", "mechanism-param")
	seed := fs.Uint64("seed", 1, "random seed")
	force := fs.Bool("force", false, "replace answer files already in --output (without it they are refused before any problem is answered)")
	language := fs.String("language", "", "answer only the problems in this language (e.g. en)")
	reject := fs.String("reject", "none", "leave texts unattributed (<UNK>): none | pan19 (the PAN 2019 baseline's rule: the two largest calibrated probabilities differ by less than the threshold; char-ngram-svm, pan19-baseline — which applies its own 0.1 rule without it) | score-margin (the top two raw scores closer than the threshold) | score (top raw score below it)")
	threshold := fs.Float64("reject-threshold", 0.1, "threshold of --reject: on calibrated probabilities (pan19; the baseline's 0.1) or on the attacker's raw scores")
	params := newParamFlag()
	fs.Var(params, "param", "attacker parameter `key=value` (repeatable)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *input == "" || *output == "" {
		return usagef("--input and --output are required; no other arguments")
	}
	rule := attribution.RejectRule{Rule: *reject, Threshold: *threshold}
	if err := rule.Validate(); err != nil {
		return usagef("--reject: %v", err)
	}
	var env registry.Env
	env.Workers = 2
	ao, err := registry.DecodeClassifier(*attacker, params.String())
	if err != nil {
		return err
	}
	needs := ao.Needs()
	var mo *registry.MechanismOptions
	if mech.name != "" {
		if mo, err = mech.decode(); err != nil {
			return err
		}
		needs = needs.Or(mo.Needs())
	}
	if needs.TrainingCorpus {
		if env.Corpus, err = defaultTrainingCorpus(ctx, stderr); err != nil {
			return err
		}
	}
	if needs.Vectors {
		if env.Embeddings, err = emb.load(ctx, stderr); err != nil {
			return err
		}
	}
	opts := attribution.AttributeOptions{Input: *input, Output: *output, Seed: *seed, Language: *language, Reject: rule, Progress: stderr, Force: *force,
		NewAttacker: func() (learn.Classifier, error) { return ao.Build(&env) }}
	if mo != nil {
		if opts.Mechanism, err = mo.Build(&env, mech.epsilon.Value()); err != nil {
			return err
		}
	}
	res, err := attribution.Attribute(opts)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, attribution.FormatResults(res))
	fmt.Fprintf(stdout, "answers written to %s\n", *output)
	return nil
}
