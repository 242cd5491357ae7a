// Package runner runs a validated config (package runconfig): it reads the corpus and the
// vectors, draws the sets (the protocol split), applies every mechanism at every ε, scores the
// output with every scorer, and writes a run directory — cells, caches, locks, shards, the
// manifest — and its reports (results.csv, predictions, verdicts, tables).
package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dptext/attackers"
	"dptext/experiments/fingerprint"
	"dptext/experiments/protocol"
	"dptext/experiments/registry"
	"dptext/experiments/report"
	"dptext/experiments/report/render"
	"dptext/experiments/runconfig"
	"dptext/experiments/rundir"
	"dptext/experiments/runreport"
	"dptext/experiments/verdictrun"
	"dptext/internal/learn"
	"dptext/internal/rngs"
	"dptext/mechanisms"
	"dptext/mechanisms/expmech"
)

// RunOptions control where and how a config runs.
type RunOptions struct {
	// OutDir is the run directory; empty means results/<name>/<first 12 hex digits of the
	// config hash>, so that running the same config again resumes or reuses it.
	OutDir string
	// Jobs is how many cells run at once (results do not depend on it).
	Jobs int
	// Force discards finished cells of an earlier run in the same directory and recomputes
	// every mechanism instead of reading privatised documents from the cache in the data
	// directory (derived/private), which is otherwise shared by all runs.
	Force bool
	// DataDir is the cache of the default data (see the datasets package).
	DataDir string
	// Log receives plain progress lines; Progress, when non-nil, receives a live status line
	// (for terminals) instead of per-cell log lines.
	Log      io.Writer
	Progress io.Writer
	// Shard, when set, runs only that part of the cells (see Shard and assignShards) and
	// ends with status "shard complete" in shards/K-of-N.json, without results.csv:
	// Merge writes the outputs once every shard is done.
	Shard rundir.Shard
	// merge makes Run compute nothing: it checks every cell and writes the outputs (Merge).
	merge bool
}

// cell is one (set, mechanism, ε, repeat) combination: the unit of work and of resumption.
type cell struct {
	set, mech int
	eps       report.Epsilon
	rep       int
}

func (c cell) path(cfg *runconfig.Config, sets []*protocol.SetData) string {
	return fmt.Sprintf("set=%s/mech=%s/eps=%s/rep=%d", sets[c.set].Name, cfg.Mechanisms[c.mech].ID(),
		c.eps, c.rep)
}

// Run executes cfg and returns the run directory. A run killed at any moment and started
// again with the same options skips the cells it finished and ends with the same results.csv.
// The directory is locked for the run's duration; finished cells are reused only when the
// config, component versions, seed and every input are unchanged (otherwise Run refuses,
// naming what changed, unless opts.Force).
func Run(ctx context.Context, cfg *runconfig.Config, opts RunOptions) (string, error) {
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	dir := opts.OutDir
	if dir == "" {
		dir = filepath.Join("results", cfg.Name, cfg.Hash[:12])
	}
	logf := timestampedLog(opts.Log)
	// Parameter values are checked (by the code of `dptext check`) before anything is loaded
	// or written: a bad value fails at once, naming its line, and leaves no run folder.
	if err := runconfig.CheckComponents(cfg); err != nil {
		return dir, err
	}
	if !opts.Shard.Sharded() { // a whole run or a merge draws the plots at its end
		if err := render.CheckTempDir(); err != nil {
			return dir, err
		}
	}
	if err := rundir.CheckOutDir(dir); err != nil {
		return dir, err
	}
	unlock, err := rundir.LockFor(dir, opts.Shard, logf)
	if err != nil {
		return dir, err
	}
	defer unlock()
	if opts.Shard.Sharded() {
		rundir.RemoveShardTemps(dir, opts.Shard)
	} else {
		rundir.RemoveStaleTemps(dir)
	}
	if err := checkRunDir(dir, cfg, opts.Force && !opts.Shard.Sharded(), logf); err != nil {
		return dir, err
	}
	// Until the inputs are hashed and compared, the folder is left as it was: a refused or
	// failed start does not destroy the results of an earlier run.
	in, err := loadInputs(ctx, cfg, opts, logf)
	if err != nil {
		recordFailedStart(dir, cfg, opts, err)
		return dir, err
	}
	start := time.Now()
	behaviour := fingerprint.Components(cfg, fingerprint.Inputs{Store: in.store, ConfigDir: filepath.Dir(cfg.Path), InputSHA256: in.dataSums, Context: ctx})
	logf("behaviour fingerprints of %d components in %s (each mechanism on the canary at its ε, each scorer on the fixture)", len(behaviour), time.Since(start).Round(time.Millisecond))
	for _, k := range slices.Sorted(maps.Keys(behaviour)) {
		if !fingerprint.Usable(behaviour[k]) {
			logf("%s: %s; its cells and releases are keyed by its registry version only", k, behaviour[k])
		}
	}
	if err := ctx.Err(); err != nil {
		recordFailedStart(dir, cfg, opts, err)
		return dir, err
	}
	fp := rundir.NewFingerprint(cfg, in.inputs, behaviour)
	if err := prepareDir(dir, cfg, opts, fp, logf); err != nil {
		return dir, err
	}
	return dir, runWithManifest(ctx, cfg, opts, dir, in, fp, logf)
}

// runWithManifest runs the config with a live manifest in dir, its heartbeat beating while
// the cells run, and records in it how the run ended.
func runWithManifest(ctx context.Context, cfg *runconfig.Config, opts RunOptions, dir string, in *inputs, fp *rundir.Fingerprint, logf func(string, ...any)) error {
	man := rundir.NewManifest(cfg, opts.Jobs)
	man.SetShard(opts.Shard)
	man.Inputs = in.inputs
	man.Behaviour = fp.Behaviour
	man.Corpus = in.corpus
	live := rundir.NewLiveManifest(dir, man)
	if err := live.Update(func(*rundir.Manifest) {}); err != nil {
		return err
	}
	stop, beating := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(beating)
		live.Beat(stop)
	}()
	err := run(ctx, cfg, opts, dir, in, fp, live, logf)
	close(stop)
	<-beating
	if werr := live.Update(func(m *rundir.Manifest) { endManifest(m, dir, opts, err) }); werr != nil && err == nil {
		err = werr
	}
	return err
}

// timestampedLog returns a log function writing each line to w after the time of day; it
// is safe for concurrent use (workers log too, e.g. a damaged cache entry).
func timestampedLog(w io.Writer) func(string, ...any) {
	var logMu sync.Mutex
	return func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(w, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
}

// recordFailedStart writes, when dir has no manifest of an earlier attempt (nothing to keep),
// a manifest saying how this first attempt ended: failed with err, or interrupted while
// loading the inputs.
func recordFailedStart(dir string, cfg *runconfig.Config, opts RunOptions, err error) {
	if _, merr := rundir.ReadManifestFile(dir, opts.Shard); !os.IsNotExist(merr) {
		return
	}
	man := rundir.NewManifest(cfg, opts.Jobs)
	man.SetShard(opts.Shard)
	man.Status, man.Error = rundir.StatusFailed, err.Error()
	if errors.Is(err, context.Canceled) {
		man.Status, man.Error = rundir.StatusInterrupted, "interrupted while loading the inputs; run the same command again"
	}
	_ = man.Write(dir)
}

// prepareDir readies dir for a shard, a merge or a whole run with the fingerprint fp.
func prepareDir(dir string, cfg *runconfig.Config, opts RunOptions, fp *rundir.Fingerprint, logf func(string, ...any)) error {
	switch {
	case opts.Shard.Sharded():
		return rundir.PrepareShardDir(dir, fp)
	case opts.merge:
		return rundir.PrepareMergeDir(dir)
	}
	return prepareRunDir(dir, fp, opts.Force, logf)
}

// endManifest records in m how the run ended with err: complete (a shard's own cells, or
// all), interrupted (the finished cells kept in dir) or failed.
func endManifest(m *rundir.Manifest, dir string, opts RunOptions, err error) {
	end := time.Now().UTC()
	m.Finished = &end
	switch {
	case err == nil && opts.Shard.Sharded():
		m.Status = rundir.StatusShardComplete
	case err == nil:
		m.Status = rundir.StatusComplete
	case errors.Is(err, context.Canceled):
		m.Status, m.Error = rundir.StatusInterrupted, fmt.Sprintf("interrupted after %d of %d cells; the finished cells are kept in %s: run the same command again to resume",
			m.CellsDone, m.Cells, filepath.Join(dir, "cells"))
	default:
		m.Status, m.Error = rundir.StatusFailed, err.Error()
	}
}

// checkRunDir refuses, before any data is read, to mix two configs or two versions of a
// component in one directory, and says what an earlier run there left.
func checkRunDir(dir string, cfg *runconfig.Config, force bool, logf func(string, ...any)) error {
	old, err := rundir.ReadManifest(dir)
	if err != nil {
		return nil
	}
	if force {
		logf("%s: --force: the finished cells there are discarded", dir)
		return nil
	}
	if old.ConfigHash != cfg.Hash {
		return rundir.Refusef("%s holds a run of another config (sha256 %s…, this one %s…): choose another --out, or --force to discard it",
			dir, short12(old.ConfigHash), cfg.Hash[:12])
	}
	if changed := rundir.ChangedComponents(old.Components, rundir.ComponentVersions(cfg)); len(changed) > 0 {
		return rundir.Refusef("%s holds cells made by other versions of %s: choose another --out, or --force to recompute them",
			dir, strings.Join(changed, ", "))
	}
	switch alive, why := old.Liveness(); {
	case !alive:
		logf("%s: the previous run died without finishing (%s; %d of %d cells were finished); resuming it", dir, why, old.CellsDone, old.Cells)
	case old.Status == rundir.StatusComplete:
		logf("%s: a complete run of this config is there; its finished cells are reused if its inputs are unchanged (--force recomputes)", dir)
	default:
		logf("%s: resuming a run that ended %s (%d of %d cells were finished)", dir, old.Status, old.CellsDone, old.Cells)
	}
	return nil
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// prepareRunDir discards finished cells with force, else refuses cells made from other
// inputs or settings (checkFingerprint); then removes the outputs of any earlier run.
func prepareRunDir(dir string, fp *rundir.Fingerprint, force bool, logf func(string, ...any)) error {
	cells := filepath.Join(dir, "cells")
	if force {
		if err := rundir.RemoveCellFiles(cells); err != nil {
			return err
		}
	}
	if old, _ := filepath.Glob(filepath.Join(cells, "*.csv")); len(old) > 0 {
		logf("%s: %d cell files of an older dptext (no checksum, no fingerprint) are removed and recomputed", dir, len(old))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(cells, 0o755); err != nil {
		return err
	}
	if err := rundir.CheckFingerprint(dir, fp); err != nil {
		return err
	}
	return rundir.RemoveRunOutputs(dir)
}

// run draws the sets, runs the cells (a shard its own) and, unless a shard, writes the run's
// outputs into dir.
func run(ctx context.Context, cfg *runconfig.Config, opts RunOptions, dir string, in *inputs, fp *rundir.Fingerprint, live *rundir.LiveManifest, logf func(string, ...any)) error {
	sets, whole, err := drawSets(cfg, in, live, opts.Jobs, logf)
	if err != nil {
		return err
	}
	if err := cfg.CheckDraws(drawFacts(sets)); err != nil {
		return err
	}
	r := newRunner(cfg, sets, in, dir, opts.Jobs)
	r.fingerprint, r.behaviour, r.ctx, r.logf, r.force = fp.Hash(), fp.Behaviour, ctx, logf, opts.Force
	all := gridCells(cfg, sets)
	cells := all
	if opts.Shard.Sharded() {
		cells, r.ownsFit = r.shardCells(all, opts.Shard)
		logf("shard %s: %d of the %d cells", opts.Shard, len(cells), len(all))
	}
	if opts.merge {
		if err := r.verify(all); err != nil {
			return err
		}
		if err := fp.Write(dir); err != nil {
			return err
		}
	}
	if err := r.computeCells(ctx, cells, opts, live); err != nil {
		return err
	}
	r.verdicts = verdictrun.New(cfg, r.sets, verdictHost{r, ctx, opts, live})
	if !opts.Shard.Sharded() {
		found, err := r.verdicts.Search(verdictCells(all))
		if err != nil {
			return err
		}
		all = fromVerdictCells(found)
	}
	if opts.Shard.Sharded() {
		logf("shard %s complete: %d cells in %s; when every shard is complete, dptext merge %s writes the results", opts.Shard, len(cells), filepath.Join(dir, "cells"), dir)
		return nil
	}
	return r.writeOutputs(all, whole, live)
}

// drawSets draws the sets of every repeat (protocol.Split), records in the manifest the sets
// that take every eligible author (whole), and measures each draw's bag distances (on jobs
// goroutines, one draw each at a time; the figures do not depend on jobs).
func drawSets(cfg *runconfig.Config, in *inputs, live *rundir.LiveManifest, jobs int, logf func(string, ...any)) (sets []*protocol.SetData, whole []string, err error) {
	sets, err = protocol.Split(cfg, in.docs, logf)
	if err != nil {
		return nil, nil, err
	}
	whole = protocol.WholePoolSets(cfg, sets)
	if len(whole) > 0 {
		logf("set(s) %s: resample = \"authors\", but every repeat draws the same authors (the set takes every eligible author): the intervals do not cover a draw of authors", strings.Join(whole, ", "))
		if err := live.Update(func(m *rundir.Manifest) { m.WholePoolSets = whole }); err != nil {
			return nil, nil, err
		}
	}
	var draws []*protocol.SetData
	for _, s := range sets {
		draws = append(draws, s.AllDraws()...)
	}
	start := time.Now()
	errs := make([]error, len(draws))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(max(jobs, 1), len(draws)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(draws); i = int(next.Add(1)) - 1 {
				errs[i] = draws[i].MeasureBagDistances(in.store)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	if d := time.Since(start); d > 2*time.Second {
		logf("bag distances between the snippets of %d draws measured (%s)", len(draws), d.Round(time.Millisecond))
	}
	return sets, whole, nil
}

// gridCells lists every cell of the run in its fixed order: set × mechanism × ε × repeat.
func gridCells(cfg *runconfig.Config, sets []*protocol.SetData) []cell {
	var cells []cell
	for si := range sets {
		for mi, m := range cfg.Mechanisms {
			for _, e := range m.Grid() {
				for r := 0; r < cfg.Repeats; r++ {
					cells = append(cells, cell{si, mi, e, r})
				}
			}
		}
	}
	return cells
}

// computeCells runs those of cells not finished yet (all of a shard's own with opts.Force) on
// the workers, counting each finished cell in the manifest and the progress, and logs where
// the time went.
func (r *runner) computeCells(ctx context.Context, cells []cell, opts RunOptions, live *rundir.LiveManifest) error {
	logf := r.logf
	todo, done := r.plan(cells, logf)
	if opts.Force && opts.Shard.Sharded() {
		// A shard recomputes its own cells; the other shards' files are not its to remove.
		todo, done = cells, 0
	}
	if err := live.Update(func(m *rundir.Manifest) { m.Cells, m.CellsDone = len(cells), done }); err != nil {
		return err
	}
	if done > 0 {
		logf("%d of %d cells already finished; running %d", done, len(cells), len(todo))
	}
	if !opts.Force && !opts.merge {
		r.cache = &privateCache{dir: filepath.Join(r.in.cacheDir, "private"), logf: logf}
	}
	prog := newProgress(len(cells), done, opts.Progress, logf)
	if err := r.runCells(ctx, todo, func(c cell) {
		_ = live.Update(func(m *rundir.Manifest) { m.CellsDone++ })
		prog.done(c.path(r.cfg, r.sets))
	}); err != nil {
		prog.finish()
		return err
	}
	prog.finish()
	logf("time spent (summed over workers): %s", &r.spent)
	if r.cache != nil {
		logf("private cache: %d of %d mechanism applications reused from %s", r.cacheHits.Load(), r.cacheUses.Load(), r.cache.dir)
	}
	return nil
}

// writeOutputs gathers the cells of all and writes the run's outputs: term vectors,
// predictions.csv, the verdicts, tables and plots, and results.csv last (its presence means
// the run's outputs are all there).
func (r *runner) writeOutputs(all []cell, whole []string, live *rundir.LiveManifest) error {
	cfg, dir, logf := r.cfg, r.dir, r.logf
	out, err := r.collect(all)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.WriteRows(&buf, out.rows); err != nil {
		return err
	}
	// The manifest lists every output before (tf, fixed names) or right after (plots) it is
	// written: the next run removes exactly those (rundir.RemoveRunOutputs), never a file of
	// the user's with a name like them.
	outputs := append([]string{"results.csv", "predictions.csv"}, r.termVectorFiles(out.tf)...)
	if cfg.Verdict != nil {
		outputs = append(outputs, "verdict.md", "verdict.csv")
	}
	if err := live.Update(func(m *rundir.Manifest) { m.Outputs = outputs }); err != nil {
		return err
	}
	if err := r.writeTermVectors(out.tf); err != nil {
		return err
	}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "predictions.csv"), out.predictions); err != nil {
		return err
	}
	if lines, err := render.AtChanceLines(out.rows, cfg.Report); err == nil {
		for _, l := range lines {
			logf("%s", l)
		}
	}
	// The verdicts (verdict.md, verdict.csv) and the tables and plots are written at once: they
	// read the same rows and write different files (report.html, which shows both, comes after).
	var verdictErr error
	var verdicts sync.WaitGroup
	if cfg.Verdict != nil {
		verdicts.Go(func() { verdictErr = r.verdicts.Write(dir, verdictItems(out.items), out.rows) })
	}
	written, err := runreport.WriteReport(dir, cfg, runreport.RunFacts{Corpus: r.in.corpus, WholePool: whole}, out.rows)
	verdicts.Wait()
	if verdictErr != nil {
		return verdictErr
	}
	if err != nil {
		return fmt.Errorf("writing tables and plots: %w", err)
	}
	outputs = append(outputs, written...)
	outputs = append(outputs, runreport.HTMLFile)
	slices.Sort(outputs)
	outputs = slices.Compact(outputs)
	cellTimes := map[string]*rundir.CellTime{}
	cellMech := make([]string, len(all))
	for i, c := range all {
		cellMech[i] = cfg.Mechanisms[c.mech].ID()
		if out.times[i] != nil {
			cellTimes[r.cellPath(c)] = out.times[i]
		}
	}
	var man rundir.Manifest // as report.html shows it: this run's rows, time per phase and files
	if err := live.Update(func(m *rundir.Manifest) {
		m.Rows, m.PhaseSeconds, m.Outputs, m.CellTimes = len(out.rows), r.spent.seconds(), outputs, cellTimes
		man = *m
	}); err != nil {
		return err
	}
	if err := runreport.WriteHTML(dir, cfg, runreport.RunFacts{Corpus: r.in.corpus, WholePool: whole}, &man, out.rows, outputs); err != nil {
		return fmt.Errorf("writing %s: %w", runreport.HTMLFile, err)
	}
	// results.csv last: its presence means the run's outputs are all there.
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "results.csv"), buf.Bytes()); err != nil {
		return err
	}
	ids := make([]string, len(cfg.Mechanisms))
	for i, m := range cfg.Mechanisms {
		ids[i] = m.ID()
	}
	logf("time per mechanism (wall time of its cells, summed over workers; the machine's load is in it):")
	for _, l := range mechanismTimes(ids, cellMech, out.times) {
		logf("  %s", l)
	}
	if kept, budget, again := r.distances.Stats(); kept > 0 {
		logf("shared distance rows of SanText, SanText+, TEM and the truncated Gumbel mechanism: %d kept (budget %d rows); %d rows computed past the full budget", kept, budget, again)
	}
	logf("wrote %s (%d rows), predictions.csv, table.md and plots", filepath.Join(dir, "results.csv"), len(out.rows))
	return nil
}

// plan splits cells into those to run and the number already finished: a cell is finished
// when its file and the files of the topic classifiers it fitted are complete (checksum,
// format and fingerprint). Incomplete files are logged and recomputed.
func (r *runner) plan(cells []cell, logf func(string, ...any)) (todo []cell, done int) {
	valid := map[string]bool{} // file → complete
	check := func(file, cellPath string) bool {
		if ok, seen := valid[file]; seen {
			return ok
		}
		rec, err := r.cells.Read(filepath.Join(r.dir, "cells", file), cellPath)
		ok := err == nil && rec.Fingerprint == r.fingerprint
		switch {
		case err == nil && !ok:
			logf("cell %s: computed from other inputs (fingerprint differs); recomputing", cellPath)
		case err != nil && !errors.Is(err, rundir.ErrNoCell):
			logf("cell %s: file %s is not a complete cell file (%v); recomputing", cellPath, file, err)
		}
		valid[file] = ok
		return ok
	}
	for _, c := range cells {
		ok := check(rundir.CellFile(r.cellPath(c)), r.cellPath(c))
		for _, key := range r.fitKeys(c) {
			if r.writesFit(key) {
				ok = check(fitFile(key), fitPath(key)) && ok
			}
		}
		if ok {
			done++
		} else {
			todo = append(todo, c)
		}
	}
	return todo, done
}

// fitKeys lists the keys of the fitted topic classifiers of c that write validation rows.
func (r *runner) fitKeys(c cell) []string {
	set := r.sets[c.set]
	if len(set.TopicValidation) == 0 {
		return nil
	}
	var keys []string
	for si, sc := range r.cfg.Scorers {
		if registry.Scorers[sc.Name].Task == registry.TaskTopic {
			keys = append(keys, r.fitKey(c, si))
		}
	}
	return keys
}

// fitKey names the fitted model of scorer si in cell c: one per set, scorer and repeat, or per
// cell for an adaptive scorer (trained on privatised texts).
func (r *runner) fitKey(c cell, si int) string {
	sc := r.cfg.Scorers[si]
	if r.cfg.Adaptive(sc) {
		return r.cellPath(c) + "/scorer=" + sc.ID()
	}
	return fmt.Sprintf("set=%s/scorer=%s/rep=%d", r.sets[c.set].Name, sc.ID(), c.rep)
}

func fitPath(key string) string { return "fit/" + key }
func fitFile(key string) string { return "fit__" + rundir.CellFile(key) }

// runner holds what the cells of one run share: the split, lazily built mechanisms and
// lazily fitted static scorers.
type runner struct {
	cfg  *runconfig.Config
	sets []*protocol.SetData
	in   *inputs
	dir  string
	jobs int

	mu     sync.Mutex
	mechs  map[string]*lazy[mechanisms.Mechanism]
	models map[string]*lazy[*fitted]
	metric map[string]*lazy[registry.PairMetric]
	envs   map[string]*registry.Env
	// distances is the run's word-distance rows, shared by the distance samplers of every
	// set draw (Env.DistanceRows).
	distances *expmech.DistanceRows
	// draws holds the draws that mechanisms sharing them release from (see releaseShared).
	draws map[string]*lazy[*sharedDraws]
	// cells keeps the cell files plan and collect read, parsed: the ε search reads every
	// finished cell between its rounds.
	cells rundir.CellCache
	// fingerprint is the hash written into every cell file (see fingerprint).
	fingerprint string
	// behaviour maps each component to its behaviour fingerprint (package fingerprint): the
	// private cache keys a mechanism's releases by it.
	behaviour map[string]string
	// ownsFit, in a shard, says which fit files the shard writes (nil: all; see writesFit).
	ownsFit map[string]bool
	// ctx cancels the run, including long mechanism constructions.
	ctx context.Context
	// logf receives warnings of components (Env.Log).
	logf func(string, ...any)
	// force is RunOptions.Force: components ignore their caches (Env.Force).
	force bool
	// cache holds privatised documents across runs (nil: off); cacheHits of cacheUses
	// look-ups found them.
	cache                *privateCache
	cacheUses, cacheHits atomic.Int64
	// spent accumulates the wall time of each phase over all workers, to say where a run's
	// time goes.
	spent phaseTimes
	// verdicts is the verdict orchestration: the ε search and verdict.md (package verdictrun).
	verdicts *verdictrun.Run
}

type lazy[T any] struct {
	once sync.Once
	val  T
	err  error
}

// fitted is a trained classifier; Predict calls are serialised because a classifier need not
// be safe for concurrent use.
type fitted struct {
	mu sync.Mutex
	c  learn.Classifier
}

func (f *fitted) predict(seed uint64, path string, docs [][]string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.c.Predict(rngs.New(seed, path), docs)
}

// reciprocalRanks returns the answers of predict (the same, from the same stream) with the
// true author's reciprocal rank for each of docs, the evaluation documents of set, among the
// set's authors (attackers.ReciprocalRank; a candidate the attacker dropped ranks last).
func (f *fitted) reciprocalRanks(seed uint64, path string, docs [][]string, set *protocol.SetData) ([]string, []float64, error) {
	rk, ok := f.c.(attackers.Ranker)
	if !ok {
		return nil, nil, fmt.Errorf("the attacker scores no candidate but the one it names: no reciprocal rank")
	}
	f.mu.Lock()
	pred, cands, scores := rk.PredictRanked(rngs.New(seed, path), docs)
	f.mu.Unlock()
	rrs := make([]float64, len(docs))
	for i := range docs {
		rr, err := attackers.ReciprocalRank(cands, scores[i], set.EvalAuthors[i], max(len(set.Authors), len(cands)))
		if err != nil {
			return nil, nil, fmt.Errorf("evaluation document %s: %w (every evaluation author must be a candidate: an open-set text has no rank)", documentID(set, i), err)
		}
		rrs[i] = rr
	}
	return pred, rrs, nil
}

func newRunner(cfg *runconfig.Config, sets []*protocol.SetData, in *inputs, dir string, jobs int) *runner {
	r := &runner{cfg: cfg, sets: sets, in: in, dir: dir, jobs: jobs,
		mechs: map[string]*lazy[mechanisms.Mechanism]{}, models: map[string]*lazy[*fitted]{},
		metric: map[string]*lazy[registry.PairMetric]{}, envs: map[string]*registry.Env{},
		draws: map[string]*lazy[*sharedDraws]{}}
	if in.store != nil {
		r.distances = expmech.NewDistanceRows(in.store, distanceRowsBudget)
	}
	return r
}

// distanceRowsBudget bounds the memory of the run's shared word-distance rows (Env.DistanceRows):
// 2 GiB, 13,400 rows of a 20,000-word vocabulary (8 bytes per word each). The set of
// configs/mechanisms.toml privatises about 8,000 distinct words of its vocabulary (1 GiB held
// 6,710 of them, and 11,157 rows were computed past it in the 9 sampler cells of its grids).
const distanceRowsBudget = 2 << 30

func getLazy[T any](r *runner, m map[string]*lazy[T], key string, build func() (T, error)) (T, error) {
	r.mu.Lock()
	l := m[key]
	if l == nil {
		l = &lazy[T]{}
		m[key] = l
	}
	r.mu.Unlock()
	l.once.Do(func() { l.val, l.err = build() })
	return l.val, l.err
}

// env returns the set's Env, made once so that builders can share state through Env.Memo.
func (r *runner) env(set *protocol.SetData) *registry.Env {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.envs[set.DrawKey] == nil {
		raw := make([]string, len(r.in.docs))
		for i, d := range r.in.docs {
			raw[i] = d.Text
		}
		r.envs[set.DrawKey] = &registry.Env{Embeddings: r.in.store, Workers: max(1, r.jobs), Corpus: set.TopicTrain, RawTexts: raw,
			CacheDir: r.in.cacheDir, Context: r.ctx, ConfigDir: filepath.Dir(r.cfg.Path), Log: r.logf, InputSHA256: r.in.dataSums, Force: r.force,
			DistanceRows: r.distances}
	}
	return r.envs[set.DrawKey]
}

// runCells runs cells on r.jobs workers. The first error cancels the rest.
func (r *runner) runCells(ctx context.Context, todo []cell, done func(cell)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan cell)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for w := 0; w < r.jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				err := r.runCell(ctx, c)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				if err == nil {
					done(c)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, c := range todo {
		select {
		case work <- c:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func (r *runner) mechanism(c cell) (mechanisms.Mechanism, error) {
	set, mc := r.sets[c.set].Draw(c.rep), r.cfg.Mechanisms[c.mech]
	key := fmt.Sprintf("%s/%d/%s", set.DrawKey, c.mech, c.eps)
	return getLazy(r, r.mechs, key, func() (mechanisms.Mechanism, error) {
		defer r.spent.add("build mechanisms", time.Now())
		o, err := r.cfg.MechanismOptions(c.mech)
		if err != nil {
			return nil, err
		}
		m, err := o.Build(r.env(set), c.eps.Value())
		if err != nil {
			return nil, fmt.Errorf("mechanism %s at ε = %s: %w", mc.ID(), c.eps, err)
		}
		return m, nil
	})
}

// checkEpsilon returns the error mechanism would return for c: from the options' own check of
// ε where they have one (registry.MechanismSpec.Accepts), else by building the mechanism (kept
// for the cells).
func (r *runner) checkEpsilon(c cell) error {
	set, mc := r.sets[c.set].Draw(c.rep), r.cfg.Mechanisms[c.mech]
	o, err := r.cfg.MechanismOptions(c.mech)
	if err != nil {
		return err
	}
	if checked, err := o.CheckEpsilon(r.env(set), c.eps.Value()); checked {
		if err != nil {
			return fmt.Errorf("mechanism %s at ε = %s: %w", mc.ID(), c.eps, err)
		}
		return nil
	}
	_, err = r.mechanism(c)
	return err
}

// fit returns scorer si of the cell's set fitted on docs with labels, once per key, and
// writes its fit rows (a topic classifier's validation accuracy) once.
func (r *runner) fit(c cell, si int, docs [][]string, labels []string, key string) (*fitted, error) {
	set, sc := r.sets[c.set].Draw(c.rep), r.cfg.Scorers[si]
	return getLazy(r, r.models, key, func() (*fitted, error) {
		entry := registry.Scorers[sc.Name]
		o, err := r.cfg.ScorerOptions(si)
		if err != nil {
			return nil, err
		}
		clf, err := o.Classifier.Build(r.env(set))
		if err != nil {
			return nil, fmt.Errorf("scorer %s: %w", sc.ID(), err)
		}
		defer r.spent.add("fit", time.Now())
		if err := clf.Fit(rngs.New(uint64(r.cfg.Seed), "fit/"+key), docs, labels); err != nil {
			return nil, fmt.Errorf("scorer %s on set %s: %w", sc.ID(), set.Name, err)
		}
		f := &fitted{c: clf}
		if entry.Task == registry.TaskTopic && len(set.TopicValidation) > 0 && r.writesFit(key) {
			pred := f.predict(uint64(r.cfg.Seed), "validate/"+key, set.TopicValidation)
			if err := r.ctx.Err(); err != nil { // a cancelled predict may have stopped short
				return nil, err
			}
			s := learn.Score(set.TopicValidationLabels, pred)
			rows := []report.Row{{Set: set.Name, Repeat: c.rep, Scorer: sc.ID(),
				Metric: report.MetricValidationAccuracy, Value: s.Accuracy}}
			if err := r.writeRows(filepath.Join(r.dir, "cells", fitFile(key)), fitPath(key), rows, nil, ""); err != nil {
				return nil, err
			}
		}
		return f, nil
	})
}

// writeRows writes a cell file holding rows, predictions and term vectors of cellPath.
func (r *runner) writeRows(file, cellPath string, rows []report.Row, preds []rundir.Prediction, tf string) error {
	return r.writeCell(file, cellPath, rows, preds, tf, nil)
}

// writeCell writes a cell file like writeRows, with the cell's time (nil for none).
func (r *runner) writeCell(file, cellPath string, rows []report.Row, preds []rundir.Prediction, tf string, t *rundir.CellTime) error {
	var buf bytes.Buffer
	if err := report.WriteRows(&buf, rows); err != nil {
		return err
	}
	return rundir.WriteCell(file, &rundir.CellRecord{Fingerprint: r.fingerprint, Cell: cellPath, Rows: buf.String(), Predictions: preds, TF: tf, Time: t})
}

// collected is what collect reads back from the cell files.
type collected struct {
	rows        []report.Row
	predictions []byte             // predictions.csv
	tf          map[string]string  // tf/ file name → content
	items       []itemScore        // every scorer's score of every item, in predictions.csv order
	times       []*rundir.CellTime // each cell's recorded time (nil where none), in the order of the cells
}

// collect reads every finished file back in a fixed order: split facts, fit rows (by key),
// cells; and the per-document predictions and term vectors of the cells in the same order.
func (r *runner) collect(cells []cell) (*collected, error) {
	out := &collected{tf: map[string]string{}}
	for _, s := range r.sets {
		for _, d := range s.AllDraws() {
			out.rows = append(out.rows, splitRows(d)...)
		}
	}
	fitSeen := map[string]bool{}
	var fitKeys []string
	for _, c := range cells {
		for _, k := range r.fitKeys(c) {
			if !fitSeen[k] {
				fitSeen[k] = true
				fitKeys = append(fitKeys, k)
			}
		}
	}
	sort.Strings(fitKeys)
	type item struct{ file, path string }
	var items []item
	for _, k := range fitKeys {
		items = append(items, item{fitFile(k), fitPath(k)})
	}
	for _, c := range cells {
		items = append(items, item{rundir.CellFile(r.cellPath(c)), r.cellPath(c)})
	}
	var pred bytes.Buffer
	pw := csv.NewWriter(&pred)
	_ = pw.Write([]string{"set", "mechanism", "epsilon", "repeat", "scorer", "document", "truth", "prediction", "item", "author", "value"})
	// The files are read and parsed on every core (the ε search reads them between its rounds,
	// while no cell runs), then taken in order: the same rows, and the first bad file in order
	// is the one reported.
	type parsed struct {
		rec  *rundir.CellRecord
		rows []report.Row
		err  error
	}
	done := make([]parsed, len(items))
	next := make(chan int, len(items))
	for i := range items {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(items)) {
		wg.Go(func() {
			for i := range next {
				file := filepath.Join(r.dir, "cells", items[i].file)
				rec, rows, err := r.cells.ReadRows(file, items[i].path)
				if err == nil && rec.Fingerprint != r.fingerprint {
					err = fmt.Errorf("computed from other inputs")
				}
				if err != nil {
					done[i].err = fmt.Errorf("%s: %v (run again to recompute it)", file, err)
					continue
				}
				done[i].rec, done[i].rows = rec, rows
			}
		})
	}
	wg.Wait()
	for i, it := range items {
		if done[i].err != nil {
			return nil, done[i].err
		}
		rec := done[i].rec
		out.rows = append(out.rows, done[i].rows...)
		if i < len(fitKeys) {
			continue
		}
		c := cells[i-len(fitKeys)]
		out.times = append(out.times, rec.Time)
		for _, p := range rec.Predictions {
			_ = pw.Write([]string{r.sets[c.set].Name, r.cfg.Mechanisms[c.mech].ID(), c.eps.String(),
				strconv.Itoa(c.rep), p.Scorer, report.CSVText(p.Document), report.CSVText(p.Truth), report.CSVText(p.Prediction), strconv.Itoa(p.Item), report.CSVText(p.Author), p.Value})
			out.items = append(out.items, itemScore{cell: c, pred: p})
		}
		if rec.TF != "" {
			out.tf[strings.TrimSuffix(it.file, ".cell")+".tsv"] = rec.TF
		}
	}
	pw.Flush()
	if err := pw.Error(); err != nil {
		return nil, err
	}
	out.predictions = pred.Bytes()
	out.rows = append(out.rows, runreport.DerivedRows(r.cfg, out.rows)...)
	return out, nil
}

func splitRows(s *protocol.SetData) []report.Row {
	row := func(metric string, v float64) report.Row {
		return report.Row{Set: s.Name, Repeat: s.Repeat, Scorer: "split", Metric: metric, Value: v}
	}
	rows := []report.Row{row("authors", float64(len(s.Authors))), row("topics", float64(len(s.Topics))),
		row("n_words", float64(s.N)), row("eval_docs", float64(len(s.Eval)))}
	rows = append(rows, openSetRows(s, row)...)
	if !s.NoTopicTask {
		rows = append(rows, row("topic_train_docs", float64(len(s.TopicTrain))), row("topic_validation_docs", float64(len(s.TopicValidation))))
	}
	if !math.IsNaN(s.EMDMean) {
		rows = append(rows, row("emd_mean_in_vocab", s.EMDMean), row("emd_min_in_vocab", s.EMDMin))
	}
	return rows
}
