package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"dptext/embeddings"
	"dptext/experiments/runconfig"
	"dptext/experiments/runner"
	"dptext/internal/atomicfile"
	"dptext/internal/configfile"
	"dptext/internal/text"
	"dptext/mechanisms/erae"
)

// cmdTrain trains a model a mechanism loads from a file: today ER-AE (`train erae`).
func cmdTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "erae" {
		return usagef("want a model kind: erae")
	}
	flags := newFlags(ctx, "train", stderr)
	tf := defineTrainFlags(flags)
	pos, err := parseInterleaved(flags, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 || *tf.cfgPath == "" || *tf.out == "" {
		return usagef("want --config CONFIG and --out MODEL, no other arguments")
	}
	opts := tf.options()
	if err := opts.Validate(); err != nil {
		return usagef("%v", err)
	}
	if *tf.every < 1 || *tf.every > configfile.MaxCount {
		// 0 and −1 were accepted and silently wrote no checkpoint, so that an interrupted
		// training started again from step 0.
		return usagef("--checkpoint-every %d: want 1 to %d steps", *tf.every, configfile.MaxCount)
	}
	snapshots, err := parseSnapshotSteps(*tf.snapAt, opts.Steps, *tf.out)
	if err != nil {
		return usagef("%v", err)
	}
	if err := checkTrainOutputs(*tf.out, snapshots); err != nil {
		return usagef("%v", err)
	}
	// A first estimate with 100-dimensional vectors (the default data's) refuses absurd sizes
	// before the data is loaded; the vectors' real dimension is checked once they are.
	if err := checkEraeTraining(opts, 100); err != nil {
		return usagef("%v", err)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	docs, td, err := loadEraeTrainingDocs(ctx, *tf.cfgPath, *tf.dataDir, opts, logf)
	if err != nil {
		return err
	}
	progress, snapErr := trainProgress(stderr, snapshots)
	m, err := erae.Train(ctx, docs, td.Embeddings, opts, *tf.out+".partial", *tf.every, progress)
	fmt.Fprintln(stderr)
	if err != nil {
		if ctx.Err() != nil {
			return trainInterrupted(*tf.out)
		}
		return err
	}
	if *snapErr != nil {
		return *snapErr
	}
	return writeTrainedModel(m, *tf.out, stdout, logf)
}

// trainFlags holds the flags of `dptext train erae`.
type trainFlags struct {
	def                                          erae.TrainOptions
	cfgPath, out, dataDir, snapAt                *string
	noReward, center, startState, freeze, fwords *bool
	vocab, hidden, latent, length, batch         *int
	steps, pretrain, every                       *int
	lr, dropout                                  *float64
	seed                                         *uint64
}

// defineTrainFlags defines the flags of `dptext train erae` on flags, defaulting to
// erae.DefaultTrainOptions.
func defineTrainFlags(flags *flag.FlagSet) *trainFlags {
	def := erae.DefaultTrainOptions()
	return &trainFlags{
		def:        def,
		cfgPath:    flags.String("config", "", "experiment config whose corpus, split and embeddings to train on (required)"),
		out:        flags.String("out", "", "model file to write (required); the checkpoint is OUT.partial"),
		dataDir:    flags.String("data", "", "data folder (default: the cache, $DPTEXT_DATA or ~/.cache/dptext)"),
		noReward:   flags.Bool("no-reward", false, "train without the embedding reward: the AE-DP ablation"),
		vocab:      flags.Int("vocab", def.Vocab, "output vocabulary size"),
		hidden:     flags.Int("hidden", def.Hidden, "GRU state size"),
		latent:     flags.Int("latent", def.Latent, "latent vector size"),
		length:     flags.Int("length", def.Length, "window length in tokens"),
		batch:      flags.Int("batch", def.Batch, "windows per step"),
		steps:      flags.Int("steps", def.Steps, "training steps in all"),
		pretrain:   flags.Int("pretrain-steps", def.PretrainSteps, "first steps on the reconstruction loss alone"),
		lr:         flags.Float64("learning-rate", def.LearningRate, "Adam's step size"),
		center:     flags.Bool("center-vectors", def.CenterVectors, "subtract the vocabulary's mean vector from the word vectors before the reward's cosine; false: the paper's plain cosine (Eq. 9)"),
		startState: flags.Bool("start-state", def.StartState, "start the generator from ELU(dense(latent)) as the authors' code does; false: from zero"),
		dropout:    flags.Float64("word-dropout", def.WordDropout, "probability of replacing each previous token fed to the generator by the unknown row during training (the authors' code: 0.5)"),
		freeze:     flags.Bool("freeze-embeddings", def.FreezeEmbeddings, "keep the word rows of the embedding at the configured vectors (the authors' code); false: fine-tune them"),
		fwords:     flags.Bool("function-words", false, "train on the documents with their function words (stopwords) kept, as the paper does, so that the model generates them and obfuscate rewrites them too (the config needs vocabulary = \"all\" under [embeddings]); false: on the normalised words every mechanism reads in a run"),
		seed:       flags.Uint64("seed", def.Seed, "seed of the initial weights, batches and exploration draws"),
		every:      flags.Int("checkpoint-every", 50, "steps between checkpoints"),
		snapAt:     flags.String("snapshot-at", "", "comma-separated steps (each below --steps) at which to write the model as a training of that many steps would, to OUT with -stepN before its extension"),
	}
}

// options returns the training options the parsed flags set.
func (tf *trainFlags) options() erae.TrainOptions {
	opts := tf.def
	opts.Reward = !*tf.noReward
	opts.CenterVectors = *tf.center
	opts.StartState, opts.WordDropout, opts.FreezeEmbeddings = *tf.startState, *tf.dropout, *tf.freeze
	opts.FunctionWords = *tf.fwords
	opts.Vocab, opts.Hidden, opts.Latent, opts.Length, opts.Batch = *tf.vocab, *tf.hidden, *tf.latent, *tf.length, *tf.batch
	opts.Steps, opts.PretrainSteps, opts.LearningRate, opts.Seed = *tf.steps, *tf.pretrain, *tf.lr, *tf.seed
	return opts
}

// loadEraeTrainingDocs loads the config at cfgPath and its training data (the documents of
// authors outside every set), checks the vectors' real dimension against the machine, and
// returns the token sequences to train on: lowercased with their function words for
// opts.FunctionWords, else the normalised words.
func loadEraeTrainingDocs(ctx context.Context, cfgPath, dataDir string, opts erae.TrainOptions, logf func(string, ...any)) ([][]string, *runner.TrainingData, error) {
	cfg, err := runconfig.LoadConfig(cfgPath)
	if err != nil {
		return nil, nil, err
	}
	td, err := runner.LoadTrainingData(ctx, cfg, dataDir, logf)
	if err != nil {
		return nil, nil, err
	}
	if err := checkEraeTraining(opts, td.Embeddings.Dim()); err != nil {
		return nil, nil, err
	}
	docs := td.Docs
	if opts.FunctionWords {
		if !hasStopwordVectors(td.Embeddings) {
			return nil, nil, fmt.Errorf("--function-words: the vectors of %s have no row for any stopword, so the model could neither read nor generate them: set vocabulary = \"all\" under [embeddings] (the default, \"words\", removes stopwords)", cfgPath)
		}
		docs = td.Lowercased
	}
	tokens := 0
	for _, d := range docs {
		tokens += len(d)
	}
	logf("training on %d documents (%d tokens) by %d authors outside every set; %d evaluation authors excluded", len(docs), tokens, len(td.Authors), td.Excluded)
	return docs, td, nil
}

// trainProgress returns the progress callback of a training: it writes the snapshot files
// due at each step (the first failure is kept in *snapErr, and no further snapshot is written)
// and a status line to stderr at most once a second and at the last step.
func trainProgress(stderr io.Writer, snapshots map[int]string) (func(erae.Progress), *error) {
	last := time.Time{}
	var snapErr error
	progress := func(p erae.Progress) {
		if path, ok := snapshots[p.Step]; ok && snapErr == nil {
			m, err := p.Snapshot()
			if err == nil {
				err = m.Save(path)
			}
			if err != nil {
				snapErr = err
			} else {
				fmt.Fprintf(stderr, "\nwrote %s (the model after %d steps)\n", path, p.Step)
			}
		}
		if time.Since(last) < time.Second && p.Step < p.Steps {
			return
		}
		last = time.Now()
		embed := "–" // no embedding reward during pre-training, nor ever for --no-reward
		if p.Phase == "reward" {
			embed = fmt.Sprintf("%.3f", p.Embed)
		}
		fmt.Fprintf(stderr, "\rstep %d/%d %-8s recon %.3f embed %s  %.0f tokens/s  %s left   ",
			p.Step, p.Steps, p.Phase, p.Recon, embed, p.TokensPerSecond, p.Left.Round(time.Second))
	}
	return progress, &snapErr
}

// writeTrainedModel saves m to out, removes its checkpoint out.partial, prints its training
// curve to stdout and logs what was written.
func writeTrainedModel(m *erae.Model, out string, stdout io.Writer, logf func(string, ...any)) error {
	if err := m.Save(out); err != nil {
		return err
	}
	if err := removeIfExists(out + ".partial"); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "step\trecon\tembed")
	for _, c := range m.Curve {
		fmt.Fprintf(stdout, "%d\t%.4f\t%.4f\n", c.Step, c.Recon, c.Embed)
	}
	kind := `with the embedding reward: for mechanism "erae"`
	if !m.RewardTrained() {
		kind = `without the embedding reward: for mechanism "ae-dp"`
	}
	logf("wrote %s (%d words, H = %d, %d steps, %s)", out, m.Sizes.Vocab, m.Sizes.Hidden, m.Step, kind)
	return nil
}

// hasStopwordVectors says whether store has a vector for at least one stopword.
func hasStopwordVectors(store *embeddings.Store) bool {
	for _, w := range text.Stopwords() {
		if _, ok := store.Lookup(w); ok {
			return true
		}
	}
	return false
}

// parseSnapshotSteps parses --snapshot-at: comma-separated steps in [1, steps), each mapped to
// the file OUT with "-stepN" before its extension (models/erae.model: models/erae-step1500.model).
func parseSnapshotSteps(list string, steps int, out string) (map[int]string, error) {
	snaps := map[int]string{}
	if list == "" {
		return snaps, nil
	}
	ext := filepath.Ext(out)
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n >= steps {
			return nil, fmt.Errorf("--snapshot-at %q: %q is not a step between 1 and %d (--steps − 1)", list, f, steps-1)
		}
		snaps[n] = fmt.Sprintf("%s-step%d%s", strings.TrimSuffix(out, ext), n, ext)
	}
	return snaps, nil
}

// checkTrainOutputs refuses, before any data is read or step trained, an --out (or its
// checkpoint OUT.partial, or a snapshot file) that exists and is not a regular file: a folder, a
// device such as /dev/null, a named pipe or a socket, or a symbolic link to one. The model
// writer refuses them too (atomicfile), but only after the whole training.
func checkTrainOutputs(out string, snapshots map[int]string) error {
	paths := []string{out, out + ".partial"}
	for _, step := range slices.Sorted(maps.Keys(snapshots)) {
		paths = append(paths, snapshots[step])
	}
	for _, p := range paths {
		if err := atomicfile.CheckTarget(p); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	return nil
}

// removeIfExists removes path; a missing file is not an error.
func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// trainInterrupted is the error of an interrupted training: it wraps errInterrupted, so that
// the command exits with status 130 as an interrupted run does.
func trainInterrupted(out string) error {
	return fmt.Errorf("%w; the checkpoint %s.partial is kept: run the same command again to resume", errInterrupted, out)
}
