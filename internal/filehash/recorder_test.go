package filehash

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// swap replaces path by a new file holding content, as `mv new old` does.
func swap(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".new"
	write(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// A file replaced (`mv new old`) while it is read: the Recorder's hash is that of the bytes
// read, on the opened descriptor. The mutant, hashing the path after reading (what the run did
// before: the manifest then described the new file while the results came from the old), gives
// the new file's hash, which the test shows differs.
func TestRecorderHashesTheBytesReadWhenTheFileIsSwapped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "corpus.jsonl")
	old := strings.Repeat("old line\n", 1000)
	write(t, path, old)
	oldCopy := filepath.Join(dir, "old-copy")
	write(t, oldCopy, old)
	wantSum, wantN, err := Sum(oldCopy)
	if err != nil {
		t.Fatal(err)
	}

	rec := NewRecorder(path, "a test input", 0)
	f, err := rec.Open(path, 0, "a test file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 100)
	if _, err := io.ReadFull(f, head); err != nil {
		t.Fatal(err)
	}
	swap(t, path, strings.Repeat("new line\n", 1000)) // between the open and the end of reading
	rest, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(head) + string(rest); got != old {
		t.Fatalf("read %d bytes that are not the old file's", len(got))
	}
	if err := f.Finish(); err != nil {
		t.Fatal(err)
	}
	sum, n, err := rec.Sum()
	if err != nil {
		t.Fatal(err)
	}
	if sum != wantSum || n != wantN {
		t.Errorf("Recorder.Sum = %s (%d bytes), want the hash of the bytes read %s (%d bytes)", sum, n, wantSum, wantN)
	}
	byPath, _, err := Sum(path)
	if err != nil {
		t.Fatal(err)
	}
	if byPath == sum {
		t.Errorf("mutant (hash by path after reading) gives the same hash: the swap did not happen")
	}
}

// A file that stops early (top_k rows) is read on to its end by Finish: its hash is the whole
// file's, as Sum gives it.
func TestRecorderFinishHashesTheRestOfTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.txt")
	write(t, path, "a 1\nb 2\nc 3\n")
	rec := NewRecorder(path, "a test input", 0)
	f, err := rec.Open(path, 0, "a test file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rec.Sum(); err == nil {
		t.Errorf("Sum before Finish: no error, want one (the file was not read to its end)")
	}
	if err := f.Finish(); err != nil {
		t.Fatal(err)
	}
	got, _, err := rec.Sum()
	want, _, _ := Sum(path)
	if err != nil || got != want {
		t.Errorf("Sum after Finish = %s, %v; want %s", got, err, want)
	}
}

// A folder read through a Recorder hashes as Sum does when nothing changed; a file edited after
// it was read, a file added to a listed folder, a file appearing where the reader found none,
// and a file removed after it was read each make Sum fail, naming the file or folder. Each
// case would pass unnoticed by the mutant, Sum of the folder after reading.
func TestRecorderFolderChangesAreRefused(t *testing.T) {
	build := func(t *testing.T) (string, *Recorder) {
		root := t.TempDir()
		write(t, filepath.Join(root, "t", "a", "1.txt"), "one")
		write(t, filepath.Join(root, "t", "a", "2.txt"), "two")
		write(t, filepath.Join(root, "skip.md"), "not read")
		rec := NewRecorder(root, "a test folder", 0)
		for _, d := range []string{root, filepath.Join(root, "t"), filepath.Join(root, "t", "a")} {
			if _, err := rec.ReadDir(d); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []string{"1.txt", "2.txt"} {
			if _, err := rec.ReadFile(filepath.Join(root, "t", "a", f), 100, "a test file"); err != nil {
				t.Fatal(err)
			}
		}
		if rec.Exists(filepath.Join(root, "t", "info.json")) {
			t.Fatal("info.json exists")
		}
		return root, rec
	}
	root, rec := build(t)
	got, n, err := rec.Sum()
	want, wantN, _ := Sum(root)
	if err != nil || got != want || n != wantN {
		t.Fatalf("unchanged folder: Sum = %s (%d), %v; want %s (%d)", got, n, err, want, wantN)
	}
	for _, c := range []struct {
		name, changed string
		change        func(root string)
	}{
		{"edited", "1.txt", func(root string) { swap(t, filepath.Join(root, "t", "a", "1.txt"), "ONE") }},
		{"added", filepath.Join("t", "a"), func(root string) { write(t, filepath.Join(root, "t", "a", "3.txt"), "three") }},
		{"appeared", "info.json", func(root string) { write(t, filepath.Join(root, "t", "info.json"), "{}") }},
		{"removed", filepath.Join("t", "a"), func(root string) { os.Remove(filepath.Join(root, "t", "a", "2.txt")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, rec := build(t)
			c.change(root)
			_, _, err := rec.Sum()
			var ce *ChangedError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.changed) || !strings.Contains(err.Error(), "changed while it was being read") {
				t.Errorf("Sum after the file was %s: %v, want a ChangedError naming %s", c.name, err, c.changed)
			}
			if _, _, err := Sum(root); err != nil {
				t.Errorf("mutant: %v", err)
			}
		})
	}
}

// Reads are bounded: a file above Open's limit is refused before it is read, a file that grows
// past the limit while it is read fails at the limit, and the Recorder's limit bounds all files
// together; each error names the limit.
func TestRecorderLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	write(t, big, strings.Repeat("x", 2048))
	if _, err := (*Recorder)(nil).Open(big, 1024, "a test file"); !isLimit(err, "1 KiB (1024 bytes), the limit for a test file") {
		t.Errorf("Open above the limit: %v", err)
	}
	f, err := (*Recorder)(nil).Open(big, 4096, "a test file")
	if err != nil {
		t.Fatal(err)
	}
	f.limit = 1000 // as if the file had grown past its limit after the open
	if _, err := io.ReadAll(f); !isLimit(err, "1000 bytes, the limit for a test file") {
		t.Errorf("reading past the limit: %v", err)
	}
	f.Close()
	rec := NewRecorder(dir, "a test folder", 3000)
	if _, err := rec.ReadFile(big, 0, "a test file"); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.ReadFile(big, 0, "a test file"); !isLimit(err, "3000 bytes, the limit for a test folder") {
		t.Errorf("second file past the Recorder's limit: %v", err)
	}
}

func isLimit(err error, fragment string) bool {
	var le *LimitError
	return errors.As(err, &le) && strings.Contains(err.Error(), fragment)
}

// A device, a link to one and a named pipe are refused at once (a pipe without a writer
// would block os.Open until Ctrl-C: the mutant, opening without O_NONBLOCK and before the
// stat, hangs this test until its deadline).
func TestOpenRegularRefusesDevicesAndPipesAtOnce(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	for path, kind := range map[string]string{"/dev/zero": "a device", link: "a device", fifo: "a pipe"} {
		done := make(chan error, 1)
		go func() {
			f, _, err := OpenRegular(path)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), "not a regular file ("+kind+")") {
				t.Errorf("OpenRegular(%s): %v, want not a regular file (%s)", path, err, kind)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenRegular(%s) blocks", path)
		}
	}
	if err := CheckInput(fifo, 10, "x"); err == nil || !strings.Contains(err.Error(), "a pipe") {
		t.Errorf("CheckInput(fifo): %v", err)
	}
}

// ReadRegular refuses a device behind a link at once and a file above its limit, naming the
// limit, and reads a file within it whole (mutant: no size check — the 11-byte file is read
// under a 10-byte limit).
func TestReadRegularBounds(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "fingerprint.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	var nr *NotRegularError
	if _, err := ReadRegular(link, 1<<20, "x"); !errors.As(err, &nr) {
		t.Errorf("ReadRegular(link to /dev/zero): %v", err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, []byte("01234567890"), 0o644)
	if _, err := ReadRegular(big, 10, "a test file"); !isLimit(err, "larger than 10 bytes, the limit for a test file") {
		t.Errorf("ReadRegular over the limit: %v", err)
	}
	if data, err := ReadRegular(big, 11, "x"); err != nil || string(data) != "01234567890" {
		t.Errorf("ReadRegular within the limit: %q, %v", data, err)
	}
	if _, err := ReadRegular(filepath.Join(dir, "none"), 10, "x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRegular of a missing file: %v, want fs.ErrNotExist", err)
	}
}
