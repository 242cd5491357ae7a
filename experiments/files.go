package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// writeFileAtomic writes data to path through a temporary file in the same folder, synced and
// renamed into place, so a reader never sees a partial file.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// hashPath returns the SHA-256 of a file, or of a folder's files (relative paths and contents,
// in sorted order).
func hashPath(path string) (string, int64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	var total int64
	add := func(rel, full string) error {
		f, err := os.Open(full)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", rel)
		n, err := io.Copy(h, f)
		total += n
		return err
	}
	if !info.IsDir() {
		err = add("", path)
	} else {
		var files []string
		err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				files = append(files, p)
			}
			return err
		})
		sort.Strings(files)
		for _, f := range files {
			if err != nil {
				break
			}
			rel, _ := filepath.Rel(path, f)
			err = add(filepath.ToSlash(rel), f)
		}
	}
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), total, nil
}
