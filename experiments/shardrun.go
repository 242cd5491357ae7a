package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"dptext/report"
	"dptext/runconfig"
)

// A run folder shared by shards holds, besides cells/, one lock and one manifest per shard:
// shards/K-of-N.lock and shards/K-of-N.json. A shard writes only these two files and the cell
// files of its own cells (and of the fitted classifiers it owns, see shardCells), so shards on
// different machines never write the same file. A whole run and a merge hold run.lock, the
// whole-folder lock, and refuse while a shard holds its lock; a shard refuses while run.lock
// is held or while a shard of another count N runs.

func shardLockName(s Shard) string     { return filepath.Join("shards", s.name()+".lock") }
func shardManifestName(s Shard) string { return filepath.Join("shards", s.name()+".json") }

// setShard records s in the manifest (nothing for the whole run).
func (m *Manifest) setShard(s Shard) {
	if s.Sharded() {
		m.Shard = &s
	}
}

// readManifestFile reads the manifest of the whole run, or of shard s.
func readManifestFile(dir string, s Shard) (*Manifest, error) {
	if !s.Sharded() {
		return ReadManifest(dir)
	}
	return readManifestAt(filepath.Join(dir, shardManifestName(s)))
}

func readManifestAt(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// lockFor takes the lock of shard s in dir, or the whole-folder lock.
func lockFor(dir string, s Shard, logf func(string, ...any)) (func(), error) {
	if !s.Sharded() {
		unlock, err := lockRunDir(dir, logf)
		if err != nil {
			return nil, err
		}
		if held := liveShardLocks(dir, Shard{}); len(held) > 0 {
			unlock()
			return nil, refusef("%s: shards are still running there (%s): wait for them (dptext merge checks that every cell is finished), or choose another --out",
				dir, strings.Join(held, "; "))
		}
		return unlock, nil
	}
	unlock, err := takeLock(dir, shardLockName(s), shardGone(dir, s), logf)
	if err != nil {
		return nil, err
	}
	// Having taken ours, look at the others: of two commands starting at once, at least one
	// sees the other's lock.
	if li, err := readLock(filepath.Join(dir, lockName)); err == nil && lockHeld(li) {
		unlock()
		return nil, refusef("%s is locked by pid %d on host %s (a whole run or a merge, since %s): a shard cannot run there now",
			dir, li.PID, li.Host, li.Started.Format(time.RFC3339))
	}
	if held := liveShardLocks(dir, s); len(held) > 0 {
		unlock()
		return nil, refusef("%s: shards of another shard count are running there (%s); all shards of one run must use the same N", dir, strings.Join(held, "; "))
	}
	return unlock, nil
}

// lockHeld reports whether the holder of a lock is alive: on this host, when its process
// runs; on another host, a lock counts as held (it cannot be checked from here).
func lockHeld(li lockInfo) bool {
	if li.Host == hostname() {
		return processAlive(li.PID)
	}
	return true
}

// shardGone declares the holder of shard s's lock on another host dead when the shard's
// manifest of that process says it ended, or its heartbeat stopped: Manifest.Liveness finds it
// far from this host's clock and watchHeartbeat then sees it unchanged for staleAfter; a
// lock without such a manifest is dead once older than staleAfter and no manifest of its
// holder appears while this host watches (manifestAppears). So a shard task that was
// killed on one node and resubmitted to another resumes there.
func shardGone(dir string, s Shard) func(lockInfo) (bool, string) {
	return func(li lockInfo) (bool, string) {
		path := filepath.Join(dir, shardManifestName(s))
		m, err := readManifestAt(path)
		if err == nil && m.PID == li.PID && m.Host == li.Host {
			if alive, _ := m.Liveness(); !alive {
				return watchHeartbeat(path, m)
			} else if m.Status != StatusRunning {
				return true, "whose shard manifest says " + m.Status
			}
			return false, ""
		}
		if age := time.Since(li.Started); age > staleAfter && !manifestAppears(path, li) {
			return true, fmt.Sprintf("which wrote no manifest in %s (by this host's clock) nor while this host watched for %s", age.Round(time.Second), staleAfter)
		}
		return false, ""
	}
}

// liveShardLocks lists the shard locks in dir held by live processes (lockHeld, and for
// another host shardGone), other than those of shards of mine.N (all when mine is zero).
func liveShardLocks(dir string, mine Shard) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "shards", "*.lock"))
	var held []string
	for _, f := range files {
		var s Shard
		if _, err := fmt.Sscanf(filepath.Base(f), "%d-of-%d.lock", &s.K, &s.N); err != nil {
			continue
		}
		if mine.Sharded() && s.N == mine.N {
			continue
		}
		li, err := readLock(f)
		if err != nil {
			held = append(held, fmt.Sprintf("shard %s: unreadable lock %s", s, f))
			continue
		}
		if li.Host != hostname() {
			if dead, _ := shardGone(dir, s)(li); dead {
				continue
			}
		} else if !processAlive(li.PID) {
			continue
		}
		held = append(held, fmt.Sprintf("shard %s by pid %d on %s", s, li.PID, li.Host))
	}
	return held
}

// prepareShardDir makes cells/ and refuses, like a whole run, to add cells to cells made from
// other inputs or settings; it writes nothing that other shards write (the fingerprint file is
// the merge's).
func prepareShardDir(dir string, fp *fingerprint) error {
	if err := os.MkdirAll(filepath.Join(dir, "cells"), 0o755); err != nil {
		return err
	}
	old, err := readFingerprint(dir)
	if err != nil || old == nil || old.hash() == fp.hash() || !hasCellFiles(dir) {
		return err
	}
	return refusef("%s holds finished cells computed from other data or settings; changed: %s. Reusing them would mix old and new results: choose another --out",
		dir, strings.Join(fp.diff(old), ", "))
}

// prepareMergeDir removes the outputs of an earlier run or merge (the cells are checked one
// by one in verify, and the fingerprint file rewritten after).
func prepareMergeDir(dir string, layout report.Layout) error { return removeRunOutputs(dir, layout) }

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
		rec, err := readCell(filepath.Join(r.dir, "cells", file), path)
		switch {
		case errors.Is(err, errNoCell):
			missing = append(missing, path)
		case err != nil:
			broken = append(broken, fmt.Sprintf("%s (%v)", path, err))
		case rec.Fingerprint != r.fingerprint:
			foreign = append(foreign, path)
		}
	}
	for _, c := range cells {
		check(cellFile(r.cellPath(c)), r.cellPath(c))
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
	if st := shardStatuses(r.dir); st != "" {
		b.WriteString("\nshards:" + st)
	}
	b.WriteString("\nrun the unfinished shards again (they resume), then merge again")
	return errors.New(b.String())
}

// shardStatuses describes every shard manifest in dir, one per line.
func shardStatuses(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "shards", "*.json"))
	var b strings.Builder
	seen := map[Shard]bool{}
	for _, f := range files {
		m, err := readManifestAt(f)
		if err != nil {
			fmt.Fprintf(&b, "\n  %s: unreadable (%v)", f, err)
			continue
		}
		if m.Shard != nil {
			seen[*m.Shard] = true
		}
		fmt.Fprintf(&b, "\n  %s: %s (%d of %d cells done)", strings.TrimSuffix(filepath.Base(f), ".json"), m.StatusLine(), m.CellsDone, m.Cells)
	}
	counts := map[int]bool{}
	for s := range seen {
		counts[s.N] = true
	}
	var ns []int
	for n := range counts {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	for _, n := range ns {
		for k := 0; k < n; k++ {
			if s := (Shard{K: k, N: n}); !seen[s] {
				fmt.Fprintf(&b, "\n  %s: never started (no %s)", s.name(), shardManifestName(s))
			}
		}
	}
	return b.String()
}

// ShardManifests reads the shard manifests of a run folder (shards/*.json), sorted by name.
func ShardManifests(dir string) ([]*Manifest, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "shards", "*.json"))
	sort.Strings(files)
	var out []*Manifest
	for _, f := range files {
		m, err := readManifestAt(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// Merge writes the outputs of a run folder whose cells were computed by shards (results.csv,
// predictions.csv, tables, plots, manifest.json), byte for byte what a whole run of the same
// config writes. The config is the one the shards recorded in their manifests (they must
// agree). Every cell must be there, complete and made from the same config, component
// versions and inputs as the merge sees them; otherwise Merge writes nothing and its error
// lists the cells that are not.
func Merge(ctx context.Context, dir string, opts RunOptions) error {
	mans, err := ShardManifests(dir)
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
	opts.OutDir, opts.Shard, opts.merge, opts.Force = dir, Shard{}, true, false
	_, err = Run(ctx, cfg, opts)
	return err
}
