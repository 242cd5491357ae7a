package embeddings

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"dptext/internal/filehash"
)

// A vector file replaced (`mv new old`) between the open and the end of reading: LoadHashed's
// hash is that of the bytes loaded (the old file's). A test format reads half the file, the
// file is swapped, and it reads the rest. The mutant, hashing the path after loading (what
// runner.LoadEmbeddings did), gives the new file's hash, which the test shows differs. The
// hash also covers the rows after top_k, which the text reader does not read.
func TestLoadHashedHashesTheBytesLoaded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.swp")
	old := []byte("sea 1 0\nland 0 1\nsky 1 1\n")
	os.WriteFile(path, old, 0o644)
	oldCopy := filepath.Join(dir, "old")
	os.WriteFile(oldCopy, old, 0o644)
	newFile := filepath.Join(dir, "new")
	os.WriteFile(newFile, []byte("sea 9 9\nland 9 9\nsky 9 9\n"), 0o644)
	saved := Formats
	t.Cleanup(func() { Formats = saved })
	Formats = append(slices.Clone(Formats), Format{Name: "swapped", Description: "test: a text file replaced while read", Extensions: []string{".swp"},
		read: func(ctx context.Context, f *filehash.File, path string, topK int) (*Store, error) {
			head := make([]byte, 8)
			if _, err := io.ReadFull(f, head); err != nil {
				return nil, err
			}
			if err := os.Rename(newFile, path); err != nil { // mv new old
				return nil, err
			}
			rest, err := io.ReadAll(f)
			if err != nil {
				return nil, err
			}
			tmp := filepath.Join(t.TempDir(), "parsed.txt")
			os.WriteFile(tmp, append(head, rest...), 0o644)
			return Load(tmp, FormatText, topK)
		}})
	s, sum, n, err := LoadHashed(context.Background(), path, FormatAuto, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Vector(0); v[0] != 1 {
		t.Fatalf("loaded %v: the swap came before the open", v)
	}
	want, wantN, _ := filehash.Sum(oldCopy)
	if sum != want || n != wantN {
		t.Errorf("LoadHashed's hash %s (%d bytes), want the hash of the bytes loaded %s (%d bytes)", sum, n, want, wantN)
	}
	if byPath, _, _ := filehash.Sum(path); byPath == sum {
		t.Errorf("mutant (hash by path after loading) gives the same hash: the swap did not happen")
	}

	// top_k stops the text reader after one row; the hash is still the whole file's.
	text := filepath.Join(dir, "v.txt")
	os.WriteFile(text, old, 0o644)
	s, sum, _, err = LoadHashed(context.Background(), text, FormatAuto, 1)
	if err != nil || s.Len() != 1 || sum != want {
		t.Errorf("top_k = 1: %d rows, hash %s, %v; want 1 row and the whole file's hash %s", s.Len(), sum, err, want)
	}
}

// A vector file at /dev/zero, at a link to it or at a named pipe is refused at once, for every
// format (it was read until out of memory, or blocked); a text line above MaxLineBytes (a
// file without newlines) is refused naming the limit, as is gzip data decompressing past
// MaxFileBytes (the decompressed count starts at the limit: 16 GiB cannot be written here).
func TestLoadBoundsItsReads(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "zero.txt")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.vec")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range FormatNames() {
		for path, kind := range map[string]string{"/dev/zero": "a device", link: "a device", fifo: "a pipe"} {
			if format == FormatAuto && path == "/dev/zero" {
				continue // no extension: auto cannot tell the format
			}
			done := make(chan error, 1)
			go func() { _, err := Load(path, format, 0); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file ("+kind+")") {
					t.Errorf("Load(%s, %s): %v, want not a regular file (%s)", path, format, err, kind)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Load(%s, %s) does not return", path, format)
			}
		}
	}

	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, bytes.Repeat([]byte("w"), MaxLineBytes+10), 0o644)
	_, err := Load(long, FormatText, 0)
	if err == nil || !strings.Contains(err.Error(), "long.txt: line 1: a line longer than 1 MiB (1048576 bytes), the limit for a line of a vector file (embeddings.MaxLineBytes)") {
		t.Errorf("a line above the limit: %v", err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("sea 1 0\n"))
	zw.Close()
	g := &gzipReader{zr: mustGzip(t, gz.Bytes()), path: "v.txt.gz", n: MaxFileBytes}
	if _, err := g.Read(make([]byte, 64)); err == nil || !strings.Contains(err.Error(), "decompresses to more than 16 GiB (17179869184 bytes), the limit for a vector file (embeddings.MaxFileBytes)") {
		t.Errorf("gzip data past the limit: %v", err)
	}
}

func mustGzip(t *testing.T, data []byte) *gzip.Reader {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}
