package filehash

import (
	"strings"
	"testing"
)

// A device is refused rather than read forever (hashing /dev/zero, named as a model file,
// never ended).
func TestSumRefusesDevices(t *testing.T) {
	if _, _, err := Sum("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file or folder") {
		t.Fatalf("Sum(/dev/zero): %v", err)
	}
}
