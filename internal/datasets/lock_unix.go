//go:build unix

package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockDataset holds an exclusive flock(2) on cacheDir/.<name>.lock until the returned function
// is called, so that of many processes starting at once on one shared data folder (the tasks of
// a job array) one fetches and the others wait, then find the dataset complete. The lock is
// the kernel's: it ends with its process, so a killed fetcher never leaves it held. On NFS,
// Linux maps flock to fcntl byte-range locks, which the server arbitrates between hosts.
func lockDataset(ctx context.Context, cacheDir, name string, log io.Writer) (func(), error) {
	if err := os.MkdirAll(cacheDir, 0o755); err != nil && !errors.Is(err, os.ErrPermission) && !errors.Is(err, syscall.EROFS) {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	path := filepath.Join(cacheDir, "."+name+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) {
		// A read-only data folder (shared, prepared by someone else): nobody fetches into
		// it, so there is nothing to take turns at.
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	waited := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing the file releases the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("datasets: locking %s: %w", path, err)
		}
		if !waited {
			fmt.Fprintf(log, "%s: another process is fetching or checking it (%s is locked); waiting\n", name, path)
			waited = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
