package rundir

import (
	"dptext/internal/atomicfile"
	"dptext/internal/filehash"
)

// WriteFileAtomic writes data to path so that a reader never sees a partial file.
func WriteFileAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data) }

// HashPath returns the SHA-256 and byte count of a file or folder (see filehash.Sum).
func HashPath(path string) (string, int64, error) { return filehash.Sum(path) }
