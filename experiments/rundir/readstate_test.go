package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dptext/internal/filehash"
)

// The files a run reads back from its folder — cells/fingerprint.json, a cell file,
// manifest.json, run.lock, a shard's manifest — are refused at once when they are a named pipe
// or a link to one or to a device. Reproduction: `ln -sf /dev/zero RUN/cells/fingerprint.json;
// dptext run CONFIG --out RUN` grew to 15 GB in 5 minutes, reading /dev/zero into memory, and
// ignored SIGTERM; a fifo there blocked for ever. Mutant: os.ReadFile in place of
// filehash.ReadRegular — every read below blocks on the fifo until the test's deadline.
func TestRunFolderFilesThatAreNoRegularFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "cells"), 0o755)
	link := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(fifo, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cell := link("cells/set-1__mech-none__eps-__rep-0.abc.cell")
	link("cells/fingerprint.json")
	link("manifest.json")
	lock := link(LockName)
	reads := map[string]func() error{
		"fingerprint": func() error { _, err := readFingerprint(dir); return err },
		"cell":        func() error { _, err := ReadCell(cell, "set=1/mech=none/eps=/rep=0"); return err },
		"manifest":    func() error { _, err := ReadManifest(dir); return err },
		"shard":       func() error { _, err := ReadManifestAt(fifo); return err },
		"lock":        func() error { _, err := readLock(lock); return err },
	}
	for name, read := range reads {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			var nr *filehash.NotRegularError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), "not a regular file (a pipe)") {
				t.Errorf("%s through a link to a fifo: %v, want a refusal naming the pipe", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s through a link to a fifo blocks", name)
		}
	}
}
