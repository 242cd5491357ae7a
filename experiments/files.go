package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"dptext/atomicfile"
)

// writeFileAtomic writes data to path so that a reader never sees a partial file.
func writeFileAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data) }

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
