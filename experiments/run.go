package experiments

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dptext/learn"
	"dptext/mechanisms"
	"dptext/report"
	"dptext/rngs"
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
}

// cell is one (set, mechanism, ε, repeat) combination: the unit of work and of resumption.
type cell struct {
	set, mech int
	eps       float64 // NaN for mechanisms without ε
	rep       int
}

func (c cell) path(cfg *Config, sets []*SetData) string {
	return fmt.Sprintf("set=%s/mech=%s/eps=%s/rep=%d", sets[c.set].Name, cfg.Mechanisms[c.mech].ID(),
		report.FormatEpsilon(c.eps), c.rep)
}

func cellFile(path string) string {
	return strings.NewReplacer("/", "__", "=", "-").Replace(path) + ".csv"
}

// Run executes cfg and returns the run directory. A run killed at any moment and started
// again with the same options skips the cells it finished and ends with the same results.csv.
func Run(ctx context.Context, cfg *Config, opts RunOptions) (string, error) {
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
	logf := func(format string, args ...any) {
		fmt.Fprintf(opts.Log, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
	if err := prepareRunDir(dir, cfg, opts.Force, logf); err != nil {
		return dir, err
	}
	man := newManifest(cfg, opts.Jobs)
	if err := man.write(dir); err != nil {
		return dir, err
	}
	err := run(ctx, cfg, opts, dir, man, logf)
	end := time.Now().UTC()
	man.Finished = &end
	switch {
	case err == nil:
		man.Status = StatusComplete
	case errors.Is(err, context.Canceled):
		man.Status, man.Error = StatusInterrupted, "interrupted; run the same command again to resume"
	default:
		man.Status, man.Error = StatusFailed, err.Error()
	}
	if werr := man.write(dir); werr != nil && err == nil {
		err = werr
	}
	return dir, err
}

// prepareRunDir refuses to mix two configs in one directory, removes a previous final result
// (it is rewritten at the end), and with force discards finished cells.
func prepareRunDir(dir string, cfg *Config, force bool, logf func(string, ...any)) error {
	if old, err := ReadManifest(dir); err == nil {
		if old.ConfigHash != cfg.Hash && !force {
			return fmt.Errorf("%s holds a run of another config (sha256 %s…, this one %s…): choose another --out, or --force to discard it",
				dir, old.ConfigHash[:12], cfg.Hash[:12])
		}
		if changed := changedComponents(old.Components, componentVersions(cfg)); len(changed) > 0 && !force {
			return fmt.Errorf("%s holds cells made by other versions of %s: choose another --out, or --force to recompute them",
				dir, strings.Join(changed, ", "))
		}
		if old.Status == StatusComplete && !force {
			logf("%s: a complete run of this config is there; its finished cells are reused (--force recomputes)", dir)
		} else if !force {
			logf("%s: resuming a run that ended %s (%d of %d cells were finished)", dir, old.Status, old.CellsDone, old.Cells)
		}
	}
	if force {
		if err := os.RemoveAll(filepath.Join(dir, "cells")); err != nil {
			return err
		}
	}
	for _, f := range []string{"results.csv"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(dir, "cells"), 0o755)
}

// changedComponents lists the components whose version differs between two runs, as
// "name (old → new)".
func changedComponents(old, now map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(now) {
		if v, ok := old[k]; ok && v != now[k] {
			out = append(out, fmt.Sprintf("%s (%s → %s)", k, v, now[k]))
		}
	}
	return out
}

func run(ctx context.Context, cfg *Config, opts RunOptions, dir string, man *Manifest, logf func(string, ...any)) error {
	in, err := loadInputs(ctx, cfg, opts, logf)
	if err != nil {
		return err
	}
	man.Inputs = in.inputs
	sets, err := Split(cfg, in.docs, logf)
	if err != nil {
		return err
	}
	for _, s := range sets {
		for _, d := range s.draws() {
			if err := d.measureBagDistances(in.store); err != nil {
				return err
			}
		}
	}
	var cells []cell
	for si := range sets {
		for mi, m := range cfg.Mechanisms {
			eps := m.Epsilons
			if len(eps) == 0 {
				eps = []float64{math.NaN()}
			}
			for _, e := range eps {
				for r := 0; r < cfg.Repeats; r++ {
					cells = append(cells, cell{si, mi, e, r})
				}
			}
		}
	}
	man.Cells = len(cells)
	var todo []cell
	for _, c := range cells {
		if _, err := os.Stat(filepath.Join(dir, "cells", cellFile(c.path(cfg, sets)))); err == nil {
			man.CellsDone++
		} else {
			todo = append(todo, c)
		}
	}
	if err := man.write(dir); err != nil {
		return err
	}
	if man.CellsDone > 0 {
		logf("%d of %d cells already finished; running %d", man.CellsDone, len(cells), len(todo))
	}
	r := newRunner(cfg, sets, in, dir, opts.Jobs)
	if !opts.Force {
		r.cache = &privateCache{dir: filepath.Join(in.cacheDir, "private")}
	}
	prog := newProgress(len(cells), man.CellsDone, opts.Progress, logf)
	if err := r.runCells(ctx, todo, func(c cell) {
		man.CellsDone++
		_ = man.write(dir)
		prog.done(c.path(cfg, sets))
	}); err != nil {
		prog.finish()
		return err
	}
	prog.finish()
	man.PhaseSeconds = r.spent.seconds()
	logf("time spent (summed over workers): %s", &r.spent)
	if r.cache != nil {
		logf("private cache: %d of %d mechanism applications reused from %s", r.cacheHits.Load(), r.cacheUses.Load(), r.cache.dir)
	}
	rows, err := r.collect(cells)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.WriteRows(&buf, rows); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "results.csv"), buf.Bytes()); err != nil {
		return err
	}
	man.Rows = len(rows)
	if err := WriteReport(dir, cfg, rows); err != nil {
		return fmt.Errorf("writing tables and plots: %w", err)
	}
	logf("wrote %s (%d rows), table.md and plots", filepath.Join(dir, "results.csv"), len(rows))
	return nil
}

// runner holds what the cells of one run share: the split, lazily built mechanisms and
// lazily fitted static scorers.
type runner struct {
	cfg  *Config
	sets []*SetData
	in   *inputs
	dir  string
	jobs int

	mu     sync.Mutex
	mechs  map[string]*lazy[mechanisms.Mechanism]
	models map[string]*lazy[*fitted]
	metric map[string]*lazy[PairMetric]
	envs   map[string]*Env
	// cache holds privatised documents across runs (nil: off); cacheHits of cacheUses
	// look-ups found them.
	cache                *privateCache
	cacheUses, cacheHits atomic.Int64
	// spent accumulates the wall time of each phase over all workers, to say where a run's
	// time goes.
	spent phaseTimes
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

func newRunner(cfg *Config, sets []*SetData, in *inputs, dir string, jobs int) *runner {
	return &runner{cfg: cfg, sets: sets, in: in, dir: dir, jobs: jobs,
		mechs: map[string]*lazy[mechanisms.Mechanism]{}, models: map[string]*lazy[*fitted]{},
		metric: map[string]*lazy[PairMetric]{}, envs: map[string]*Env{}}
}

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
func (r *runner) env(set *SetData) *Env {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.envs[set.drawKey] == nil {
		raw := make([]string, len(r.in.docs))
		for i, d := range r.in.docs {
			raw[i] = d.Text
		}
		r.envs[set.drawKey] = &Env{Embeddings: r.in.store, Workers: max(1, r.jobs), Corpus: set.TopicTrain, RawTexts: raw,
			CacheDir: r.in.cacheDir}
	}
	return r.envs[set.drawKey]
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
	set, mc := r.sets[c.set].draw(c.rep), r.cfg.Mechanisms[c.mech]
	key := fmt.Sprintf("%s/%d/%v", set.drawKey, c.mech, c.eps)
	return getLazy(r, r.mechs, key, func() (mechanisms.Mechanism, error) {
		defer r.spent.add("build mechanisms", time.Now())
		m, err := Mechanisms[mc.Name].build(r.env(set), c.eps, r.cfg.params(fmt.Sprintf("mechanisms[%d]", c.mech), mc))
		if err != nil {
			return nil, fmt.Errorf("mechanism %s at ε = %v: %w", mc.ID(), c.eps, err)
		}
		return m, nil
	})
}

// fit returns scorer si of the cell's set fitted on docs with labels, once per key, and
// writes its fit rows (a topic classifier's validation accuracy) once.
func (r *runner) fit(c cell, si int, docs [][]string, labels []string, key string) (*fitted, error) {
	set, sc := r.sets[c.set].draw(c.rep), r.cfg.Scorers[si]
	return getLazy(r, r.models, key, func() (*fitted, error) {
		entry := Scorers[sc.Name]
		clf, err := entry.classifier(r.env(set), r.cfg.params(fmt.Sprintf("scorers[%d]", si), sc))
		if err != nil {
			return nil, fmt.Errorf("scorer %s: %w", sc.ID(), err)
		}
		defer r.spent.add("fit", time.Now())
		if err := clf.Fit(rngs.New(r.cfg.Seed, "fit/"+key), docs, labels); err != nil {
			return nil, fmt.Errorf("scorer %s on set %s: %w", sc.ID(), set.Name, err)
		}
		f := &fitted{c: clf}
		if entry.Task == TaskTopic && len(set.TopicValidation) > 0 {
			pred := f.predict(r.cfg.Seed, "validate/"+key, set.TopicValidation)
			s := learn.Score(set.TopicValidationLabels, pred)
			rows := []report.Row{{Set: set.Name, Epsilon: math.NaN(), Repeat: c.rep, Scorer: sc.ID(),
				Metric: "validation_accuracy", Value: s.Accuracy}}
			if err := r.writeRows(filepath.Join(r.dir, "cells", "fit__"+cellFile(key)), rows); err != nil {
				return nil, err
			}
		}
		return f, nil
	})
}

func (r *runner) writeRows(path string, rows []report.Row) error {
	var buf bytes.Buffer
	if err := report.WriteRows(&buf, rows); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// collect reads every finished file back in a fixed order: split facts, fit rows, cells.
func (r *runner) collect(cells []cell) ([]report.Row, error) {
	var rows []report.Row
	for _, s := range r.sets {
		for _, d := range s.draws() {
			rows = append(rows, splitRows(d)...)
		}
	}
	fits, _ := filepath.Glob(filepath.Join(r.dir, "cells", "fit__*.csv"))
	sort.Strings(fits)
	files := fits
	for _, c := range cells {
		files = append(files, filepath.Join(r.dir, "cells", cellFile(r.cellPath(c))))
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		rs, err := report.ReadRows(fh, f)
		fh.Close()
		if err != nil {
			return nil, err
		}
		rows = append(rows, rs...)
	}
	return append(rows, derivedRows(r.cfg, rows)...), nil
}

func splitRows(s *SetData) []report.Row {
	row := func(metric string, v float64) report.Row {
		return report.Row{Set: s.Name, Epsilon: math.NaN(), Repeat: s.Repeat, Scorer: "split", Metric: metric, Value: v}
	}
	rows := []report.Row{row("authors", float64(len(s.Authors))), row("topics", float64(len(s.Topics))),
		row("n_words", float64(s.N)), row("eval_docs", float64(len(s.Eval))),
		row("topic_train_docs", float64(len(s.TopicTrain))), row("topic_validation_docs", float64(len(s.TopicValidation)))}
	if !math.IsNaN(s.EMDMean) {
		rows = append(rows, row("emd_mean_in_vocab", s.EMDMean), row("emd_min_in_vocab", s.EMDMin))
	}
	return rows
}
