package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"dptext/internal/filehash"
)

// LockName is the file in a run directory that a run holds exclusively while it runs.
const LockName = "run.lock"

// LockInfo is the content of run.lock: who holds the directory.
type LockInfo struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
}

func Hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown-host"
	}
	return h
}

// LockRunDir takes the exclusive lock of dir (creating dir). A lock left by a process of this
// host that is no longer running is taken over with a log line; a live one, or one of another
// host, is an error naming its holder. The returned function releases the lock.
func LockRunDir(dir string, logf func(string, ...any)) (func(), error) {
	return takeLock(dir, LockName, nil, logf)
}

// takeLock takes the lock file name (relative to dir) as lockRunDir describes; gone, when not
// nil, may declare the holder of a lock of another host dead (then its lock is taken over).
func takeLock(dir, name string, gone func(LockInfo) (bool, string), logf func(string, ...any)) (func(), error) {
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	me := LockInfo{PID: os.Getpid(), Host: Hostname(), Started: time.Now().UTC()}
	data, _ := json.Marshal(me)
	for attempt := 0; attempt < 3; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.Write(append(data, '\n'))
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, werr
			}
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		old, rerr := readLock(path)
		if rerr != nil {
			// A lock file being written right now, or garbage: look again shortly.
			if attempt < 2 {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			return nil, fmt.Errorf("%s exists but is unreadable (%v): another run may be using %s; remove the file if none is", path, rerr, dir)
		}
		dead, why := false, ""
		if old.Host != me.Host && gone != nil {
			dead, why = gone(old)
		}
		if old.Host != me.Host && !dead {
			return nil, Refusef("%s is locked by pid %d on host %s (since %s): another dptext run is writing there. Wait for it, choose another --out, or remove %s if that process is gone",
				dir, old.PID, old.Host, old.Started.Format(time.RFC3339), path)
		}
		if old.Host == me.Host && processAlive(old.PID) {
			return nil, Refusef("%s is locked by a running process, pid %d (since %s): another dptext run is writing there. Wait for it or choose another --out",
				dir, old.PID, old.Started.Format(time.RFC3339))
		}
		if why == "" {
			why = "which is no longer running"
		}
		logf("%s: taking over the lock %s of pid %d on %s (started %s), %s", dir, name, old.PID, old.Host, old.Started.Format(time.RFC3339), why)
		// Move the stale lock aside under a unique name so that of two runs taking it over at
		// once only one removes it and the other finds the new lock.
		aside := fmt.Sprintf("%s.stale-%d", path, me.PID)
		if err := os.Rename(path, aside); err == nil {
			os.Remove(aside)
		}
	}
	return nil, fmt.Errorf("could not take the lock %s", path)
}

func readLock(path string) (LockInfo, error) {
	var li LockInfo
	data, err := filehash.ReadRegular(path, filehash.MaxStateBytes, "a run lock")
	if err != nil {
		return li, err
	}
	if err := json.Unmarshal(data, &li); err != nil {
		return li, err
	}
	if li.PID <= 0 {
		return li, fmt.Errorf("no pid")
	}
	return li, nil
}
