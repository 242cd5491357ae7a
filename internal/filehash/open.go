package filehash

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// OpenRegular opens path for reading when it is a regular file (symbolic links followed). A
// device (/dev/zero), a named pipe or a socket is refused at once with a *NotRegularError,
// never read or waited on: the file is stat'ed before it is opened, opened without blocking
// (a named pipe put in its place in between does not wait for a writer), and stat'ed again
// through the opened descriptor. A file of a kernel pseudo file system (/proc, /sys), which
// stats as regular and empty yet may block for ever when read (/proc/kmsg), is refused the
// same way. The info returned is that of the opened file.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	if fs, err := pseudoFS(f); err != nil || fs != "" {
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, &NotRegularError{Path: path, Mode: info.Mode(), FS: fs}
	}
	return f, info, nil
}

// NotRegularError reports a file that is neither a regular file nor (where a folder is
// accepted) a folder: a device, a named pipe or a socket, whose content has no end or no
// size to check, or a file of a kernel pseudo file system (FS), whose size says nothing.
type NotRegularError struct {
	Path string
	Mode os.FileMode
	// FS names the kernel pseudo file system ("proc", "sysfs", …) the file is on, if any.
	FS string
}

// Error names the file and what it is.
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s)", e.Path, e.What())
}

// What says what the file is instead: "a device", "a pipe", "a socket", or a file of a
// kernel pseudo file system.
func (e *NotRegularError) What() string {
	if e.FS != "" {
		return "a file of the kernel's " + e.FS + " file system, which may block or never end when read"
	}
	return Kind(e.Mode)
}

// LimitError reports an input larger than the limit stated for its kind.
type LimitError struct {
	Path string
	// What names the kind of input the limit is for, e.g. "a corpus file or folder".
	What  string
	Limit int64
}

// Error names the file, the limit and what it bounds.
func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: larger than %s, the limit for %s", e.Path, Bytes(e.Limit), e.What)
}

// Bytes renders a byte count for messages: "4 MiB (4194304 bytes)" for a whole number of
// KiB, MiB or GiB, else "N bytes".
func Bytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s (%d bytes)", n/u.size, u.name, n)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// CheckInput reports, from its metadata alone and without reading it, why path cannot be
// read as an input of at most limit bytes: it does not exist, it is neither a regular file nor
// a folder (a device, a named pipe, a socket), it lies on a kernel pseudo file system (/proc,
// /sys), or it is a regular file larger than limit (what names the kind of input the limit is
// for). Commands that check a config use it to refuse
// what a run would refuse when reading.
func CheckInput(path string, limit int64, what string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !info.IsDir() && !info.Mode().IsRegular():
		return &NotRegularError{Path: path, Mode: info.Mode()}
	}
	if fs, err := pseudoFSPath(path); err != nil || fs != "" {
		if err != nil {
			return err
		}
		return &NotRegularError{Path: path, Mode: info.Mode(), FS: fs}
	}
	switch {
	case info.IsDir():
		return nil
	case info.Size() > limit:
		return &LimitError{Path: path, What: what, Limit: limit}
	}
	return nil
}

// MaxStateBytes bounds a file dptext wrote itself and reads back whole — a run folder's
// manifest, lock, fingerprint, cell files, results.csv and tables, a shard's manifest, a
// derived cache entry, a dataset's marker — far above any it writes (a cell of the largest
// shipped config is a few MB) and far below what would exhaust memory.
const MaxStateBytes = 1 << 30

// ReadRegular reads the whole of the regular file at path (see OpenRegular: a device, named
// pipe, socket or pseudo-file, also behind a symbolic link, is refused at once with a
// *NotRegularError), refusing with a *LimitError (what names the kind of file) one above
// limit bytes, also one that grows past it while read. A missing file gives an error
// matching fs.ErrNotExist, as os.ReadFile's does.
func ReadRegular(path string, limit int64, what string) ([]byte, error) {
	f, info, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, &LimitError{Path: path, What: what, Limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &LimitError{Path: path, What: what, Limit: limit}
	}
	return data, nil
}
