//go:build unix

package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// processAlive reports whether a process with this id exists on this host and is not a
// zombie (a killed process its parent has not reaped yet, seen through /proc where there is one).
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses, which may itself hold ") ".
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
