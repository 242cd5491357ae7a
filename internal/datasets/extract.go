package datasets

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// extract unpacks the gzip-compressed tarball into dest and returns the number of files; it
// stops with ctx's error when ctx is cancelled.
// Entries whose name is absolute or climbs out of dest ("../x") are an error; only regular
// files and folders are created (npm tarballs hold nothing else), other entry types are an error.
func extract(ctx context.Context, tarball, dest string) (int, error) {
	f, err := os.Open(tarball)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(ctxReader{ctx, f})
	if err != nil {
		return 0, err
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	files := 0
	for {
		if err := ctx.Err(); err != nil {
			return files, err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return files, err
		}
		if !filepath.IsLocal(h.Name) {
			return files, fmt.Errorf("entry %q would be written outside the target folder", h.Name)
		}
		target := filepath.Join(dest, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return files, err
			}
		case tar.TypeReg:
			if err := writeFile(target, tr); err != nil {
				return files, err
			}
			files++
		default:
			return files, fmt.Errorf("entry %q has type %q, want a regular file or folder", h.Name, h.Typeflag)
		}
	}
}

func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
