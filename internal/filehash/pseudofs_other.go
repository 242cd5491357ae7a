//go:build !linux

package filehash

import "os"

// pseudoFS reports no pseudo file system where the kernel has none dptext knows of.
func pseudoFS(*os.File) (string, error) { return "", nil }

// pseudoFSPath reports no pseudo file system where the kernel has none dptext knows of.
func pseudoFSPath(string) (string, error) { return "", nil }
