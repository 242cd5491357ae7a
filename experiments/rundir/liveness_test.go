package rundir

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A shard lock of another host is taken over only when its heartbeat stops changing as seen
// from here, whatever the two clocks say: a live holder with a heartbeat 5 s in the future
// (its clock ahead) or 2·staleAfter in the past (its clock behind, still beating) keeps its
// lock; a holder whose heartbeat stays put through the watch loses it. The watch's sleeps are
// replaced, so the test waits for nothing: a beating holder rewrites its heartbeat in them.
func TestShardLockLivenessIgnoresClockSkew(t *testing.T) {
	s := Shard{K: 0, N: 2}
	logf := func(string, ...any) {}
	setup := func(beat time.Time) string {
		dir := t.TempDir()
		li, _ := json.Marshal(LockInfo{PID: 4242, Host: "node-b", Started: beat})
		if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ShardLockName(s)), li, 0o644); err != nil {
			t.Fatal(err)
		}
		writeBeat(t, dir, s, beat)
		return dir
	}
	defer func(f func(time.Duration)) { pollSleep = f }(pollSleep)

	// Clock ahead by 5 s: before the fix this read "no heartbeat … (last -5s ago)".
	pollSleep = func(time.Duration) { t.Fatal("a heartbeat near this clock was watched") }
	dir := setup(time.Now().Add(5 * time.Second))
	if _, err := LockFor(dir, s, logf); err == nil || !strings.Contains(err.Error(), "locked by pid 4242 on host node-b") {
		t.Fatalf("a live lock with a heartbeat 5 s ahead: got %v, want a refusal", err)
	}

	// Clock behind by 2·staleAfter, still beating: the watch sees the heartbeat move.
	old := time.Now().Add(-2 * StaleAfter)
	dir = setup(old)
	n := 0
	pollSleep = func(time.Duration) {
		n++
		writeBeat(t, dir, s, old.Add(time.Duration(n)*HeartbeatInterval))
	}
	if _, err := LockFor(dir, s, logf); err == nil || !strings.Contains(err.Error(), "locked by pid 4242") {
		t.Fatalf("a beating lock with a clock behind: got %v, want a refusal", err)
	}

	// The same lock with a heartbeat that stays put is dead: taken over after the full watch.
	dir = setup(old)
	n = 0
	pollSleep = func(time.Duration) { n++ }
	var log strings.Builder
	u, err := LockFor(dir, s, func(f string, a ...any) { log.WriteString(fmt.Sprintf(f, a...)) })
	if err != nil {
		t.Fatalf("a lock whose heartbeat stopped: %v", err)
	}
	u()
	if n != heartbeatPolls || !strings.Contains(log.String(), "did not change while this host watched it") {
		t.Fatalf("taken over after %d of %d polls; log %q", n, heartbeatPolls, log.String())
	}
}

func writeBeat(t *testing.T, dir string, s Shard, beat time.Time) {
	t.Helper()
	m := &Manifest{Tool: "dptext", Status: StatusRunning, PID: 4242, Host: "node-b", Heartbeat: &beat, Shard: &s}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
}

// A shard lock of another host without a manifest yet (its holder still loads its inputs) is
// not taken over when its start looks old by this clock but the manifest appears while this
// host watches; without one appearing, it is.
func TestShardLockWithoutManifestIsWatched(t *testing.T) {
	s := Shard{K: 1, N: 2}
	defer func(f func(time.Duration)) { pollSleep = f }(pollSleep)
	setup := func() string {
		dir := t.TempDir()
		li, _ := json.Marshal(LockInfo{PID: 4343, Host: "node-c", Started: time.Now().Add(-2 * StaleAfter)})
		if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ShardLockName(s)), li, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := setup()
	pollSleep = func(time.Duration) {
		beat := time.Now()
		m := &Manifest{Tool: "dptext", Status: StatusRunning, PID: 4343, Host: "node-c", Heartbeat: &beat, Shard: &s}
		if err := m.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LockFor(dir, s, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "locked by pid 4343 on host node-c") {
		t.Fatalf("a loading shard whose manifest appears: got %v, want a refusal", err)
	}
	dir = setup()
	pollSleep = func(time.Duration) {}
	u, err := LockFor(dir, s, func(string, ...any) {})
	if err != nil {
		t.Fatalf("a lock whose holder never wrote a manifest: %v", err)
	}
	u()
}

// Liveness of another host's run: a heartbeat within staleAfter of this clock, on either side,
// is alive; none at all, or one far ahead, is a first verdict of dead that says which.
func TestLivenessToleratesSkewBothWays(t *testing.T) {
	ahead, farAhead := time.Now().Add(5*time.Second), time.Now().Add(3*StaleAfter)
	m := &Manifest{Status: StatusRunning, PID: 7, Host: "elsewhere", Heartbeat: &ahead}
	if alive, why := m.Liveness(); !alive {
		t.Fatalf("heartbeat 5 s ahead judged dead: %s", why)
	}
	m.Heartbeat = &farAhead
	if alive, why := m.Liveness(); alive || !strings.Contains(why, "ahead of this host's clock") {
		t.Fatalf("heartbeat 3 min ahead: %v %q", alive, why)
	}
	m.Heartbeat = nil
	if alive, why := m.Liveness(); alive || !strings.Contains(why, "(last never)") {
		t.Fatalf("no heartbeat: %v %q", alive, why)
	}
}
