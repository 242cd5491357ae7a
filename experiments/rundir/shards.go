package rundir

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"dptext/internal/filehash"
)

func ShardLockName(s Shard) string     { return filepath.Join("shards", s.name()+".lock") }
func shardManifestName(s Shard) string { return filepath.Join("shards", s.name()+".json") }

// SetShard records s in the manifest (nothing for the whole run).
func (m *Manifest) SetShard(s Shard) {
	if s.Sharded() {
		m.Shard = &s
	}
}

// ReadManifestFile reads the manifest of the whole run, or of shard s.
func ReadManifestFile(dir string, s Shard) (*Manifest, error) {
	if !s.Sharded() {
		return ReadManifest(dir)
	}
	return ReadManifestAt(filepath.Join(dir, shardManifestName(s)))
}

func ReadManifestAt(path string) (*Manifest, error) {
	data, err := filehash.ReadRegular(path, filehash.MaxStateBytes, "a shard manifest")
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LockFor takes the lock of shard s in dir, or the whole-folder lock.
func LockFor(dir string, s Shard, logf func(string, ...any)) (func(), error) {
	if !s.Sharded() {
		unlock, err := LockRunDir(dir, logf)
		if err != nil {
			return nil, err
		}
		if held := liveShardLocks(dir, Shard{}); len(held) > 0 {
			unlock()
			return nil, Refusef("%s: shards are still running there (%s): wait for them (dptext merge checks that every cell is finished), or choose another --out",
				dir, strings.Join(held, "; "))
		}
		return unlock, nil
	}
	unlock, err := takeLock(dir, ShardLockName(s), shardGone(dir, s), logf)
	if err != nil {
		return nil, err
	}
	// Having taken ours, look at the others: of two commands starting at once, at least one
	// sees the other's lock.
	if li, err := readLock(filepath.Join(dir, LockName)); err == nil && lockHeld(li) {
		unlock()
		return nil, Refusef("%s is locked by pid %d on host %s (a whole run or a merge, since %s): a shard cannot run there now",
			dir, li.PID, li.Host, li.Started.Format(time.RFC3339))
	}
	if held := liveShardLocks(dir, s); len(held) > 0 {
		unlock()
		return nil, Refusef("%s: shards of another shard count are running there (%s); all shards of one run must use the same N", dir, strings.Join(held, "; "))
	}
	return unlock, nil
}

// lockHeld reports whether the holder of a lock is alive: on this host, when its process
// runs; on another host, a lock counts as held (it cannot be checked from here).
func lockHeld(li LockInfo) bool {
	if li.Host == Hostname() {
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
func shardGone(dir string, s Shard) func(LockInfo) (bool, string) {
	return func(li LockInfo) (bool, string) {
		path := filepath.Join(dir, shardManifestName(s))
		m, err := ReadManifestAt(path)
		if err == nil && m.PID == li.PID && m.Host == li.Host {
			if alive, _ := m.Liveness(); !alive {
				return watchHeartbeat(path, m)
			} else if m.Status != StatusRunning {
				return true, "whose shard manifest says " + m.Status
			}
			return false, ""
		}
		if age := time.Since(li.Started); age > StaleAfter && !manifestAppears(path, li) {
			return true, fmt.Sprintf("which wrote no manifest in %s (by this host's clock) nor while this host watched for %s", age.Round(time.Second), StaleAfter)
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
		if li.Host != Hostname() {
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

// PrepareShardDir makes cells/ and refuses, like a whole run, to add cells to cells made from
// other inputs or settings; it writes nothing that other shards write (the fingerprint file is
// the merge's).
func PrepareShardDir(dir string, fp *Fingerprint) error {
	if err := os.MkdirAll(filepath.Join(dir, "cells"), 0o755); err != nil {
		return err
	}
	old, err := readFingerprint(dir)
	if err != nil || old == nil || old.Hash() == fp.Hash() || !hasCellFiles(dir) {
		return err
	}
	return Refusef("%s holds finished cells computed from other data or settings; changed: %s. Reusing them would mix old and new results: choose another --out",
		dir, strings.Join(fp.Diff(old), ", "))
}

// PrepareMergeDir removes the outputs of an earlier run or merge (the cells are checked one
// by one in verify, and the fingerprint file rewritten after).
func PrepareMergeDir(dir string) error { return RemoveRunOutputs(dir) }

// ShardStatuses describes every shard manifest in dir, one per line.
func ShardStatuses(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "shards", "*.json"))
	var b strings.Builder
	seen := map[Shard]bool{}
	for _, f := range files {
		m, err := ReadManifestAt(f)
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
		m, err := ReadManifestAt(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, m)
	}
	return out, nil
}
