package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
)

// A Recorder hashes an input (a file or a folder of files) from the very bytes a reader
// parses, so that its fingerprint can never describe other bytes than those used, even when
// the input is replaced (`mv new old`) or edited while it is read. A reader opens every file
// through the Recorder (Open, ReadFile) and lists every folder through it (ReadDir); Sum then
// returns the input's hash in Sum's format:
//
//   - an input that is one file: the hash of the bytes read through its one descriptor (the
//     parsed bytes and the rest of the file, read on to its end by File.Finish);
//   - a folder: the folder is hashed as Sum hashes it, and every file the reader read must
//     have, byte for byte, the content it had when read (their SHA-256 are compared), and
//     every folder it listed the same names; otherwise Sum fails, naming the file that changed.
//
// Every read is bounded: each file by the limit given to Open, and all files together by the
// Recorder's limit (0: none), with a *LimitError naming the limit. A nil *Recorder may be used
// to read bounded files without recording them. A Recorder may be used by several goroutines.
type Recorder struct {
	root  string
	what  string
	limit int64

	mu    sync.Mutex
	total int64
	files map[string]fileDigest // cleaned path → digest of the content read
	dirs  map[string][]string   // cleaned folder path → names listed
	// absent holds the paths a reader found missing (Exists).
	absent []string
}

// fileDigest is the SHA-256 of a file read through a Recorder and its length; for the root
// file the hash starts with Sum's "\x00" prefix, so that it is Sum's hash of the input.
type fileDigest struct {
	sum [sha256.Size]byte
	n   int64
}

// NewRecorder returns a Recorder of the input at root, which may be read up to limit bytes
// over all its files (0: no limit); what names the input's kind for messages, e.g. "a corpus
// file or folder".
func NewRecorder(root, what string, limit int64) *Recorder {
	return &Recorder{root: filepath.Clean(root), what: what, limit: limit,
		files: map[string]fileDigest{}, dirs: map[string][]string{}}
}

// A File is a regular file opened through a Recorder: reading it hashes what is read, on the
// same descriptor, and fails with a *LimitError beyond its limit.
type File struct {
	rec   *Recorder
	f     *os.File
	path  string
	key   string
	h     hash.Hash
	n     int64
	limit int64
	what  string
	info  os.FileInfo
}

// Open opens path (a regular file: see OpenRegular) for reading at most limit bytes (0: no
// limit other than the Recorder's); what names the kind of file the limit is for. A file
// larger than limit is refused before it is read.
func (r *Recorder) Open(path string, limit int64, what string) (*File, error) {
	f, info, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	if limit > 0 && info.Size() > limit {
		f.Close()
		return nil, &LimitError{Path: path, What: what, Limit: limit}
	}
	file := &File{rec: r, f: f, path: path, key: filepath.Clean(path), h: sha256.New(), limit: limit, what: what, info: info}
	if r != nil {
		if r.limit > 0 && r.bytes()+info.Size() > r.limit {
			f.Close()
			return nil, &LimitError{Path: r.root, What: r.what, Limit: r.limit}
		}
		if file.key == r.root {
			file.h.Write([]byte{0}) // Sum's prefix of a single file: its empty relative path
		}
	}
	return file, nil
}

func (r *Recorder) bytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// Stat returns the information of the opened file (not of what its path names now).
func (f *File) Stat() os.FileInfo { return f.info }

// Read reads from the file, hashing what it returns.
func (f *File) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	f.h.Write(p[:n])
	f.n += int64(n)
	if f.limit > 0 && f.n > f.limit {
		return 0, &LimitError{Path: f.path, What: f.what, Limit: f.limit}
	}
	if r := f.rec; r != nil && n > 0 {
		r.mu.Lock()
		r.total += int64(n)
		over := r.limit > 0 && r.total > r.limit
		r.mu.Unlock()
		if over {
			return 0, &LimitError{Path: r.root, What: r.what, Limit: r.limit}
		}
	}
	return n, err
}

// Finish reads the file on to its end (a reader may stop early, e.g. after top_k rows), so
// that its hash covers the whole file, and records it as read. Call it once the file's
// content is parsed without error; a file closed without Finish is not recorded.
func (f *File) Finish() error {
	if _, err := io.CopyBuffer(io.Discard, f, make([]byte, 1<<20)); err != nil {
		return err
	}
	if f.rec == nil {
		return nil
	}
	var d fileDigest
	f.h.Sum(d.sum[:0])
	d.n = f.n
	f.rec.mu.Lock()
	defer f.rec.mu.Unlock()
	if old, ok := f.rec.files[f.key]; ok && old != d {
		return &ChangedError{Root: f.rec.root, Path: f.path}
	}
	f.rec.files[f.key] = d
	return nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile reads the whole of path (at most limit bytes: see Open) and records it.
func (r *Recorder) ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := r.Open(path, limit, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, 0, f.info.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, max(512, len(data)))
		}
	}
	if err := f.Finish(); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadDir lists folder path as os.ReadDir does (sorted by name) and records the names.
func (r *Recorder) ReadDir(path string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(path)
	if err != nil || r == nil {
		return entries, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	key := filepath.Clean(path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.dirs[key]; ok && !slices.Equal(old, names) {
		return nil, &ChangedError{Root: r.root, Path: path, Folder: true}
	}
	r.dirs[key] = names
	return entries, nil
}

// Exists reports whether path exists, recording a missing path: a file that appears there
// before Sum makes Sum fail, since the reader decided without it.
func (r *Recorder) Exists(path string) bool {
	_, err := os.Stat(path)
	if err != nil && r != nil {
		r.mu.Lock()
		r.absent = append(r.absent, path)
		r.mu.Unlock()
	}
	return err == nil
}

// ChangedError reports an input whose file or folder changed while it was read: the bytes or
// names a reader parsed are not those the input now holds, so no fingerprint describes them.
type ChangedError struct {
	Root, Path string
	Folder     bool // the names in folder Path changed
}

// Error names the input and the file or folder that changed.
func (e *ChangedError) Error() string {
	what := "the content of " + e.Path
	if e.Folder {
		what = "the files in folder " + e.Path
	}
	return fmt.Sprintf("%s: %s changed while it was being read, so no fingerprint describes the bytes read: run again once it no longer changes", e.Root, what)
}

// Sum returns the input's SHA-256 and byte count in Sum's format, computed from (a single
// file) or checked against (a folder) the bytes read through r: see Recorder.
func (r *Recorder) Sum() (string, int64, error) {
	info, err := os.Stat(r.root)
	if err != nil {
		return "", 0, err
	}
	if !info.IsDir() {
		r.mu.Lock()
		d, ok := r.files[r.root]
		r.mu.Unlock()
		if !ok {
			return "", 0, fmt.Errorf("%s: not read to its end, so it has no fingerprint of the bytes read", r.root)
		}
		return hex.EncodeToString(d.sum[:]), d.n, nil
	}
	return r.sumFolder()
}

// sumFolder hashes the folder as Sum does, checking the files and folders read against it.
func (r *Recorder) sumFolder() (string, int64, error) {
	var files []string
	listed := map[string]bool{}
	check := func(dir string, entries []os.DirEntry) error {
		key := filepath.Clean(dir)
		names, ok := r.dirs[key]
		if !ok {
			return nil
		}
		listed[key] = true
		now := make([]string, len(entries))
		for i, e := range entries {
			now[i] = e.Name()
		}
		if !slices.Equal(names, now) {
			return &ChangedError{Root: r.root, Path: dir, Folder: true}
		}
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, path := range r.absent {
		if _, err := os.Lstat(path); err == nil {
			return "", 0, &ChangedError{Root: r.root, Path: path}
		}
	}
	if err := walk(r.root, nil, &files, check); err != nil {
		return "", 0, err
	}
	for dir := range r.dirs {
		if !listed[dir] {
			return "", 0, &ChangedError{Root: r.root, Path: dir, Folder: true}
		}
	}
	sort.Strings(files)
	h := sha256.New()
	var total int64
	seen := 0
	for _, path := range files {
		rel, _ := filepath.Rel(r.root, path)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		want, read := r.files[filepath.Clean(path)]
		f, _, err := OpenRegular(path)
		if err != nil {
			return "", 0, err
		}
		one := sha256.New()
		n, err := io.CopyBuffer(io.MultiWriter(h, one), f, make([]byte, 1<<20))
		f.Close()
		if err != nil {
			return "", 0, err
		}
		if total += n; r.limit > 0 && total > r.limit {
			return "", 0, &LimitError{Path: r.root, What: r.what, Limit: r.limit}
		}
		if read {
			seen++
			if got := one.Sum(nil); n != want.n || !slices.Equal(got, want.sum[:]) {
				return "", 0, &ChangedError{Root: r.root, Path: path}
			}
		}
	}
	if seen != len(r.files) {
		for key := range r.files {
			if !slices.Contains(files, key) {
				return "", 0, &ChangedError{Root: r.root, Path: key}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), total, nil
}
