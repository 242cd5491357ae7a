//go:build !unix

package rundir

import "os"

// processAlive reports whether a process with this id may exist on this host (without a
// portable probe, finding it counts as alive).
func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
