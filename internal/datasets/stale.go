package datasets

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"dptext/internal/filehash"
)

// fetchPrefix starts the name of the temporary folder of a fetch in progress.
const fetchPrefix = ".fetch-"

// ownerFile, inside a fetch folder, records "pid host unix-seconds" of the fetching process, so
// that a later fetch can tell a folder left by a killed process from one still in use.
const ownerFile = "OWNER"

// Limits of cleanStale: a folder without an owner record (written by an older dptext, or by a
// process killed in the instant between creating the folder and recording itself) counts as
// abandoned after staleUnowned; any folder counts as abandoned after staleAny, whoever owns it
// (a fetch takes minutes, and the pid may have been reused).
const (
	staleUnowned = time.Hour
	staleAny     = 24 * time.Hour
)

// writeOwner records the current process as the owner of the fetch folder dir.
func writeOwner(dir string) error {
	host, _ := os.Hostname()
	rec := fmt.Sprintf("%d %s %d\n", os.Getpid(), host, time.Now().Unix())
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(rec), 0o644)
}

// cleanStale removes the fetch folders in cacheDir that interrupted fetches left behind: those
// whose owner, on this host, is no longer running, and those older than the limits above. A
// folder of a fetch still running (here or, within a day, on another host sharing the folder)
// is kept. What is removed, and what cannot be, is reported on log.
func cleanStale(cacheDir string, log io.Writer, now time.Time) {
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		return
	}
	host, _ := os.Hostname()
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), fetchPrefix) {
			continue
		}
		dir := filepath.Join(cacheDir, e.Name())
		why := staleReason(dir, host, now)
		if why == "" {
			continue
		}
		size := dirSize(dir)
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(log, "warning: could not remove %s, left by an interrupted fetch: %v\n", dir, err)
			continue
		}
		fmt.Fprintf(log, "removed %s (%.1f MB), left by an interrupted fetch (%s)\n", dir, float64(size)/1e6, why)
	}
}

// staleReason says why the fetch folder dir is abandoned, or returns "" if it may be in use.
func staleReason(dir, host string, now time.Time) string {
	rec, err := filehash.ReadRegular(filepath.Join(dir, ownerFile), 1<<20, "a fetch folder's owner record")
	if err != nil {
		info, serr := os.Stat(dir)
		if serr != nil || now.Sub(info.ModTime()) < staleUnowned {
			return ""
		}
		return fmt.Sprintf("no owner recorded, last changed %s ago", now.Sub(info.ModTime()).Round(time.Minute))
	}
	f := strings.Fields(string(rec))
	var pid int
	var started int64
	if len(f) == 3 {
		pid, _ = strconv.Atoi(f[0])
		started, _ = strconv.ParseInt(f[2], 10, 64)
	}
	if pid <= 0 || started <= 0 {
		return "" // a record being written; judged by the next fetch
	}
	if age := now.Sub(time.Unix(started, 0)); age >= staleAny {
		return fmt.Sprintf("started %s ago by process %d on %s", age.Round(time.Hour), pid, f[1])
	}
	if f[1] == host && !processAlive(pid) {
		return fmt.Sprintf("process %d, which started it, is no longer running", pid)
	}
	return ""
}

// processAlive reports whether a process with this pid runs on this host.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if runtime.GOOS == "windows" || err != nil { // on Windows, FindProcess fails for an ended process
		return err == nil
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// dirSize is the total size of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
