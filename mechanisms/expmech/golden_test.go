package expmech

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update makes the golden tests rewrite their files in testdata/ (`go test ./mechanisms/expmech -update`)
// instead of only comparing with them.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden returns the contents of testdata/name, after writing got there if -update is set.
func golden(t *testing.T, name string, got []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	return want
}
