package metricdp

import (
	"flag"
	"testing"

	"dptext/internal/fixtures"
)

// update makes the golden tests rewrite their files in testdata/ (`go test ./mechanisms/metricdp -update`)
// instead of only comparing with them.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden returns the contents of testdata/name, after writing got there if -update is set.
func golden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	return fixtures.Golden(t, *update, name, got)
}
