package datasets

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// An interrupted `dptext data` stops unpacking between entries with the context's error.
func TestExtractStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	tarball := filepath.Join(dir, "x.tgz")
	f, err := os.Create(tarball)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, name := range []string{"package/a.txt", "package/b.txt"} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
		tw.Write([]byte("x"))
	}
	tw.Close()
	gz.Close()
	f.Close()
	if n, err := extract(context.Background(), tarball, filepath.Join(dir, "ok")); err != nil || n != 2 {
		t.Fatalf("extract: %d files, %v", n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, err := extract(ctx, tarball, filepath.Join(dir, "stopped")); !errors.Is(err, context.Canceled) || n != 0 {
		t.Fatalf("cancelled extract: %d files, %v", n, err)
	}
}
