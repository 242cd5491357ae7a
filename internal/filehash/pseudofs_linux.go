//go:build linux

package filehash

import (
	"os"
	"syscall"
)

// pseudoFileSystems names the kernel's pseudo file systems by their statfs magic numbers
// (linux/magic.h). Their files stat as regular and empty, yet a read may block for ever
// (/proc/kmsg waits for kernel messages) or return content of any length.
var pseudoFileSystems = map[int64]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0x62656570: "configfs",
	0xcafe4a11: "bpf",
}

// pseudoFS names the kernel pseudo file system the opened file f lives on, "" for any other.
func pseudoFS(f *os.File) (string, error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return "", err
	}
	var st syscall.Statfs_t
	var serr error
	if err := conn.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil {
		return "", err
	}
	if serr != nil {
		return "", serr
	}
	return pseudoFileSystems[int64(st.Type)], nil
}

// pseudoFSPath is pseudoFS for a path (symbolic links followed), without opening it.
func pseudoFSPath(path string) (string, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return "", err
	}
	return pseudoFileSystems[int64(st.Type)], nil
}
