//go:build linux

package filehash

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file of /proc stats as a regular, empty file, yet /proc/kmsg blocks for ever when read:
// `dptext check /proc/kmsg`, a corpus or vectors at /proc/kmsg and `calibrate --embeddings
// /proc/kmsg --format text` all hung until killed. Such files are refused when opened and by
// CheckInput, also behind a symbolic link and as a folder (/proc/self). The test opens
// /proc/self/status, which never blocks; the mutant without the pseudo file system check
// (pseudoFS returning "") opens it and fails every case.
func TestOpenRegularRefusesKernelPseudoFiles(t *testing.T) {
	link := filepath.Join(t.TempDir(), "status.txt")
	if err := os.Symlink("/proc/self/status", link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/proc/self/status", link} {
		f, _, err := OpenRegular(path)
		if err == nil {
			f.Close()
		}
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.FS != "proc" || !strings.Contains(err.Error(), "the kernel's proc file system") {
			t.Errorf("OpenRegular(%s): %v, want a refusal naming the proc file system", path, err)
		}
		if err := CheckInput(path, 1<<20, "x"); err == nil || !strings.Contains(err.Error(), "proc file system") {
			t.Errorf("CheckInput(%s): %v", path, err)
		}
		if _, _, err := Sum(path); err == nil || !strings.Contains(err.Error(), "proc file system") {
			t.Errorf("Sum(%s): %v", path, err)
		}
	}
	if err := CheckInput("/proc/self", 1<<20, "x"); err == nil || !strings.Contains(err.Error(), "proc file system") {
		t.Errorf("CheckInput(/proc/self): %v", err)
	}
	// An ordinary file still opens.
	plain := filepath.Join(t.TempDir(), "plain.txt")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, err := OpenRegular(plain)
	if err != nil {
		t.Fatalf("OpenRegular(plain file): %v", err)
	}
	f.Close()
	if err := CheckInput(plain, 10, "x"); err != nil {
		t.Errorf("CheckInput(plain file): %v", err)
	}
}
