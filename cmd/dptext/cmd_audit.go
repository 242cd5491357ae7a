package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"dptext/embeddings"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/runconfig"
	"dptext/experiments/runner"
	"dptext/internal/datasets"
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
	all := fs.Bool("all", false, "audit every mechanism with an ε of --config at each of its ε (without --config: every registry mechanism with an ε that its default options build, at ε = "+strconv.FormatFloat(auditAllEpsilon, 'g', -1, 64)+", truncated-gumbel at 1000), one summary table")
	configPath := fs.String("config", "", "with --all: the run `CONFIG` whose mechanisms, embeddings, seed and [audit] table to use (flags given override the table)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *all {
		return auditAll(ctx, fs.Name(), pos, set, *configPath, emb, *samples, *maxSamples, *alpha, *pairs, *seed, stdout, stderr)
	}
	if *configPath != "" {
		return usagef("--config %s: only with --all", *configPath)
	}
	if len(pos) > 0 || mech.name == "" {
		return usagef("--mechanism is required (or --all); no other arguments")
	}
	mech.inline = *inline
	o := audit.DefaultOptions()
	o.Samples, o.Alpha, o.Pairs, o.Seed, o.MaxSamples = *samples, *alpha, *pairs, *seed, *maxSamples
	if set["claim"] { // NaN is the default, so a --claim NaN given is told apart by Visit
		if !(*claim >= 0) || math.IsInf(*claim, 0) {
			return usagef("--claim %v: want a finite number ≥ 0", *claim)
		}
		o.Claim, o.ClaimSet = *claim, true
	}
	if err := checkAuditOptions(o); err != nil {
		return err
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
	start := time.Now()
	o.Progress = auditProgress(stderr, mech.name, start)
	rep, err := audit.Audit(mech.name, m, store, o)
	if err != nil {
		return err
	}
	rep.Write(stdout, mech.name, mech.epsilon.Value(), store.Len(), time.Since(start))
	if v := rep.Violations(); len(v) > 0 {
		return fmt.Errorf("%d test(s) exceed the claim ε = %.6g; the largest: %s", len(v), rep.Claim, v[0].Describe())
	}
	return nil
}

// checkAuditOptions refuses audit options outside their ranges, naming the flag.
func checkAuditOptions(o audit.Options) error {
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
	return nil
}

// auditAllEpsilon is the ε at which `dptext audit --all` without --config audits every
// registry mechanism that takes one, except those of auditAllEpsilons.
const auditAllEpsilon = 10

// auditAllEpsilons are the registry mechanisms `dptext audit --all` audits at another ε than
// auditAllEpsilon: truncated-gumbel takes only ε > (2(1+ln|V|)+3)/Δ_min, about 43 over
// 30,000 GloVe words (1000 is the middle of its grid in configs/mechanisms.toml).
var auditAllEpsilons = map[string]float64{"truncated-gumbel": 1000}

// auditCase is one mechanism at one ε of `dptext audit --all`.
type auditCase struct {
	name    string
	epsilon report.Epsilon
	options *registry.MechanismOptions
}

// auditAll runs `dptext audit --all`: every mechanism with an ε of the config at configPath
// (each at each of its ε; over the config's embeddings, with its seed and [audit] table, the
// flags set overriding them) or, without a config, every registry mechanism with an ε at
// auditAllEpsilon over the --embeddings flags' vocabulary, each through the same audit as a
// run's [audit] table (audit.Audit); it writes one summary line per mechanism and ε and
// returns an error when any audit fails or cannot run.
func auditAll(ctx context.Context, cmd string, pos []string, set map[string]bool, configPath string, emb *embeddingFlags,
	samples, maxSamples int, alpha float64, pairs int, seed uint64, stdout, stderr io.Writer) error {
	if len(pos) > 0 {
		return usagef("--all takes no arguments")
	}
	for _, name := range []string{"mechanism", "epsilon", "param", "params", "claim"} {
		if set[name] {
			return usagef("--%s: not with --all, which audits each mechanism at its own ε and claim", name)
		}
	}
	o := audit.DefaultOptions()
	var cases []auditCase
	var store *embeddings.Store
	env := &registry.Env{Workers: 2}
	if configPath != "" {
		for _, name := range []string{"embeddings", "format", "vocabulary", "top-k"} {
			if set[name] {
				return usagef("--%s: not with --config, whose [embeddings] table is used", name)
			}
		}
		cfg, err := runconfig.LoadConfig(configPath)
		if err != nil {
			return err
		}
		if cfg.Audit != nil {
			o = runner.ConfigAuditOptions(cfg)
		} else {
			o.Seed = uint64(cfg.Seed)
		}
		for i, c := range cfg.Mechanisms {
			if !registry.Mechanisms[c.Name].UsesEpsilon {
				continue // claims nothing: a run's [audit] table leaves it out too
			}
			mo, err := cfg.MechanismOptions(i)
			if err != nil {
				return err
			}
			for _, e := range c.Grid() {
				cases = append(cases, auditCase{c.ID(), e, mo})
			}
		}
		dataDir, err := datasets.DefaultCacheDir()
		if err != nil {
			return err
		}
		if store, _, err = runner.LoadEmbeddings(ctx, cfg.Embeddings, cfg.Resolve(cfg.Embeddings.Path), dataDir, stderr); err != nil {
			return err
		}
	} else {
		for _, name := range registry.MechanismNames() {
			if !registry.Mechanisms[name].UsesEpsilon {
				continue
			}
			e := report.EpsilonOf(auditAllEpsilon)
			if v, ok := auditAllEpsilons[name]; ok {
				e = report.EpsilonOf(v)
			}
			mo, err := registry.DecodeMechanism(name, e, "")
			if err != nil {
				return err
			}
			cases = append(cases, auditCase{name, e, mo})
		}
		var err error
		if store, err = emb.load(ctx, stderr); err != nil {
			return err
		}
	}
	if set["samples"] {
		o.Samples = samples
	}
	if set["max-samples"] {
		o.MaxSamples = maxSamples
	}
	if set["alpha"] {
		o.Alpha = alpha
	}
	if set["pairs"] {
		o.Pairs = pairs
	}
	if set["seed"] {
		o.Seed = seed
	}
	if err := checkAuditOptions(o); err != nil {
		return err
	}
	if len(cases) == 0 {
		return usagef("--all: no mechanism with an ε to audit")
	}
	env.Embeddings = store
	rows := make([]audit.SummaryRow, 0, len(cases))
	var unbuilt []string // registry mechanisms their default options cannot build (erae needs a model)
	failed := 0
	for _, c := range cases {
		start := time.Now()
		row := audit.SummaryRow{Mechanism: c.name, Epsilon: c.epsilon.Value()}
		if c.options.Needs().TrainingCorpus && env.Corpus == nil {
			corpus, err := defaultTrainingCorpus(ctx, stderr)
			if err != nil {
				return err
			}
			env.Corpus = corpus
		}
		m, err := c.options.Build(env, c.epsilon.Value())
		if err != nil && configPath == "" {
			unbuilt = append(unbuilt, err.Error())
			continue
		}
		if err == nil {
			oc := o
			oc.Progress = auditProgress(stderr, c.name, start)
			row.Report, err = audit.Audit(c.name, m, store, oc)
		}
		row.Err, row.Took = err, time.Since(start)
		if row.Failed() {
			failed++
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(stdout, "%s --all over %d words: K = %d, family-wise α = %g per audit, seed %d\n", cmd, store.Len(), o.Samples, o.Alpha, o.Seed)
	audit.WriteSummary(stdout, rows)
	for _, u := range unbuilt {
		fmt.Fprintf(stdout, "not audited (its default options build nothing; audit it with --config): %s\n", u)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d audits failed", failed, len(rows))
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
