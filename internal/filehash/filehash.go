// Package filehash hashes what dptext reads, a file or a folder of files, for manifests,
// fingerprints and the check of the data cache: Sum by path, and Recorder from the very bytes
// a reader parses (so that no file replaced during a read separates a fingerprint from its
// content). It also opens inputs safely (OpenRegular: a device or named pipe is refused, never
// read or waited on) and bounds reads (LimitError names the limit).
package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Sum returns the SHA-256 of a file, or of a folder's files (relative paths and contents,
// in sorted order). Symbolic links to files and folders are followed, as the corpus readers
// follow them, so a file edited behind a link changes the hash; a link to a folder on its own
// path (a loop) and a broken link are left out, as the readers leave them out.
func Sum(path string) (string, int64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	var total int64
	add := func(rel, full string) error {
		f, _, err := OpenRegular(full)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", rel)
		n, err := io.Copy(h, f)
		total += n
		return err
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		// A device (/dev/zero) or a pipe has no content to hash: it would be read forever.
		return "", 0, fmt.Errorf("%s: not a regular file or folder (%s)", path, Kind(info.Mode()))
	}
	if !info.IsDir() {
		err = add("", path)
	} else {
		var files []string
		if err = walk(path, nil, &files, nil); err == nil {
			sort.Strings(files)
			for _, f := range files {
				rel, _ := filepath.Rel(path, f)
				if err = add(filepath.ToSlash(rel), f); err != nil {
					break
				}
			}
		}
	}
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), total, nil
}

// walk appends to files the regular files below dir, following symbolic links; stack holds
// the real paths of dir's ancestors, to skip loops. check, when not nil, is given every
// folder's entries as listed.
func walk(dir string, stack []string, files *[]string, check func(dir string, entries []os.DirEntry) error) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	if slices.Contains(stack, real) {
		return nil
	}
	stack = append(stack, real)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(dir, entries); err != nil {
			return err
		}
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		info, err := os.Stat(p) // follows links
		switch {
		case err != nil && e.Type()&os.ModeSymlink != 0:
			continue // broken link
		case err != nil:
			return err
		case info.IsDir():
			if err := walk(p, stack, files, check); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			*files = append(*files, p)
		}
	}
	return nil
}

// Kind names what a file that is not regular is, for messages: "a folder", "a device",
// "a pipe", "a socket", else its mode.
func Kind(mode os.FileMode) string {
	switch {
	case mode.IsDir():
		return "a folder"
	case mode&(os.ModeDevice|os.ModeCharDevice) != 0:
		return "a device"
	case mode&os.ModeNamedPipe != 0:
		return "a pipe"
	case mode&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + mode.String()
}
