package atomicfile

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A completed write replaces the file, readable by others; a failed one leaves the old
// content and no temporary file.
func TestWriteReplacesOrLeavesUnchanged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	path := filepath.Join(dir, "f.txt")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("content %q (%v), want %q", got, err, "two")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only f.txt: %v", len(entries), entries)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
}

// specialFiles makes, in dir, one file of every kind Write must refuse to replace: a named
// pipe, a socket, a folder and a symbolic link to the machine's /dev/null need no privileges and
// are always made; a character device made by mknod (the case that once turned a device into a
// regular file) is added when the test runs as root. The kinds made are returned, so that a test
// on a machine without mknod still checks the four others.
func specialFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	files["named pipe"] = fifo
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	files["socket"] = sock
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	files["folder"] = folder
	link := filepath.Join(dir, "null-link")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	files["character device"] = link
	if os.Geteuid() == 0 {
		dev := filepath.Join(dir, "dev0")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3 /* /dev/null's major 1, minor 3 */); err != nil {
			t.Fatalf("mknod as root: %v", err)
		}
		files["character device (mknod)"] = dev
	}
	return files
}

// Write never replaces a device, pipe, socket or folder (the mutant: without CheckTarget in
// Write, the fifo, socket and device become regular files and the folder write fails only
// after the work): each stays what it was, the error names its kind, and no temporary file is
// left. A symbolic link to /dev/null is refused too, and /dev/null stays a device.
func TestWriteRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	for kind, path := range specialFiles(t, dir) {
		before, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		called := false
		err = Write(path, func(w io.Writer) error { called = true; _, err := w.Write([]byte("x")); return err })
		if err == nil {
			t.Errorf("%s: Write replaced it", kind)
		} else if want := strings.TrimSuffix(kind, " (mknod)"); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not name the kind", kind, err)
		}
		if called {
			t.Errorf("%s: the content was produced before the destination was refused", kind)
		}
		after, err := os.Lstat(path)
		if err != nil || after.Mode().Type() != before.Mode().Type() {
			t.Errorf("%s: mode %v → %v (%v)", kind, before.Mode().Type(), after.Mode().Type(), err)
		}
	}
	if info, err := os.Stat("/dev/null"); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v %v", info.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
	// A regular file, a link to one and a link to nothing are still replaced.
	reg := filepath.Join(dir, "regular")
	if err := os.WriteFile(reg, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "missing"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{reg, dangling} {
		if err := WriteFile(p, []byte("new")); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
