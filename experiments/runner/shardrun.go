package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
)

// A run folder shared by shards holds, besides cells/, one lock and one manifest per shard:
// shards/K-of-N.lock and shards/K-of-N.json. A shard writes only these two files and the cell
// files of its own cells (and of the fitted classifiers it owns, see shardCells), so shards on
// different machines never write the same file. A whole run and a merge hold run.lock, the
// whole-folder lock, and refuse while a shard holds its lock; a shard refuses while run.lock
// is held or while a shard of another count N runs.

// writesFit reports whether this run writes the fit file of key (in a shard, only the fit
// files it owns; see shardCells).
func (r *runner) writesFit(key string) bool { return r.ownsFit == nil || r.ownsFit[key] }

// verify checks that every cell of cells and every fit file they use is in cells/, complete
// and made from this run's fingerprint; the error lists the others by name.
func (r *runner) verify(cells []cell) error {
	var missing, broken, foreign []string
	seen := map[string]bool{}
	check := func(file, path string) {
		if seen[file] {
			return
		}
		seen[file] = true
		rec, err := rundir.ReadCell(filepath.Join(r.dir, "cells", file), path)
		switch {
		case errors.Is(err, rundir.ErrNoCell):
			missing = append(missing, path)
		case err != nil:
			broken = append(broken, fmt.Sprintf("%s (%v)", path, err))
		case rec.Fingerprint != r.fingerprint:
			foreign = append(foreign, path)
		}
	}
	for _, c := range cells {
		check(rundir.CellFile(r.cellPath(c)), r.cellPath(c))
		for _, k := range r.fitKeys(c) {
			check(fitFile(k), fitPath(k))
		}
	}
	if len(missing)+len(broken)+len(foreign) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: cannot merge: %d of %d cell files are missing, %d incomplete, %d from other inputs or settings",
		r.dir, len(missing), len(seen), len(broken), len(foreign))
	list := func(what string, names []string) {
		for _, n := range names {
			fmt.Fprintf(&b, "\n  %s: %s", what, n)
		}
	}
	list("missing", missing)
	list("incomplete", broken)
	list("foreign (another config, component version or input; rerun its shard in a fresh folder)", foreign)
	if st := rundir.ShardStatuses(r.dir); st != "" {
		b.WriteString("\nshards:" + st)
	}
	b.WriteString("\nrun the unfinished shards again (they resume), then merge again")
	return errors.New(b.String())
}

// Merge writes the outputs of a run folder whose cells were computed by shards (results.csv,
// predictions.csv, tables, plots, manifest.json), byte for byte what a whole run of the same
// config writes. The config is the one the shards recorded in their manifests (they must
// agree). Every cell must be there, complete and made from the same config, component
// versions and inputs as the merge sees them; otherwise Merge writes nothing and its error
// lists the cells that are not.
func Merge(ctx context.Context, dir string, opts RunOptions) error {
	mans, err := rundir.ShardManifests(dir)
	if err != nil {
		return err
	}
	if len(mans) == 0 {
		return fmt.Errorf("%s: no shard manifests (shards/*.json): run `dptext run CONFIG --out %s --shard K/N` for every K first", dir, dir)
	}
	first := mans[0]
	for _, m := range mans[1:] {
		if m.ConfigHash != first.ConfigHash {
			return fmt.Errorf("%s: the shards ran different configs (%s: sha256 %s…, %s: sha256 %s…): a run folder holds one config",
				dir, first.Shard, short12(first.ConfigHash), m.Shard, short12(m.ConfigHash))
		}
	}
	cfg, err := runconfig.ParseConfig(first.ConfigPath, first.Config)
	if err != nil {
		return fmt.Errorf("%s: the config the shards recorded: %w", dir, err)
	}
	opts.OutDir, opts.Shard, opts.merge, opts.Force = dir, rundir.Shard{}, true, false
	_, err = Run(ctx, cfg, opts)
	return err
}
