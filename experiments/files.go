package experiments

import (
	"dptext/atomicfile"
	"dptext/filehash"
)

// writeFileAtomic writes data to path so that a reader never sees a partial file.
func writeFileAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data) }

// hashPath returns the SHA-256 and byte count of a file or folder (see filehash.Sum).
func hashPath(path string) (string, int64, error) { return filehash.Sum(path) }
