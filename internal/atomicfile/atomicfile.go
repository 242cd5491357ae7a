// Package atomicfile writes files so that a reader, or a crash, never sees a partial one: the
// content goes to a temporary file in the same folder, which is synced to disk and renamed
// over the destination. It is the one file writer of dptext for results, caches and answers.
// It replaces only regular files: a device, named pipe, socket or folder at the destination (or
// a symbolic link to one) is refused, never replaced.
package atomicfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckTarget fails when path exists and is not a regular file, or is a symbolic link to
// something other than a regular file: a device such as /dev/null, a named pipe, a socket or a
// folder, which a rename would replace (or fail on after the work). A missing path, and a
// symbolic link to nothing, pass.
func CheckTarget(path string) error {
	li, err := os.Lstat(path)
	if err != nil {
		return nil // missing (or unreadable: the write itself then says why)
	}
	info := li
	if li.Mode()&fs.ModeSymlink != 0 {
		if info, err = os.Stat(path); err != nil {
			return nil // a link to nothing is replaced like a missing file
		}
	}
	if info.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s, not a regular file: dptext writes only regular files and replaces no other kind (give another path)", path, kindOf(info.Mode()))
}

// kindOf names the kind of file a mode describes.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file (" + m.Type().String() + ")"
}

// Write creates or replaces path with what write produces: write fills a temporary file in
// path's folder (made if missing), which is then synced, given mode 0644, closed and renamed
// into place, and the folder synced. On any error the temporary file is removed and path is
// left as it was. A path that is not a regular file is refused (see CheckTarget), before write
// is called and again before the rename.
func Write(path string, write func(w io.Writer) error) (err error) {
	if err := CheckTarget(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := CheckTarget(path); err != nil {
		return err // made while write ran
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// WriteFile creates or replaces path with data (see Write).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// syncDir makes a rename in dir durable where the system allows syncing a folder (elsewhere,
// and on error, the rename is still atomic, only perhaps not yet on disk).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
