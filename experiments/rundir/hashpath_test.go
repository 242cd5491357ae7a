package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"dptext/internal/fixtures"
)

// A dir corpus is hashed through symbolic links, as the reader reads it: editing a file behind
// a linked folder or a linked file changes the hash and byte count. A tree without links keeps
// the hash of the plain definition (relative path, NUL, content, in sorted order), so runs made
// before links were followed keep their fingerprints.
func TestHashPathFollowsLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	fixtures.WriteText(t, filepath.Join(root, "econ", "ann", "a.txt"), "alpha text")
	fixtures.WriteText(t, filepath.Join(root, "econ", "bob", "b.txt"), "beta text")
	want := sha256.Sum256([]byte("econ/ann/a.txt\x00alpha text" + "econ/bob/b.txt\x00beta text"))
	sum, n, err := HashPath(root)
	if err != nil || sum != hex.EncodeToString(want[:]) || n != 19 {
		t.Fatalf("plain tree: %s %d %v, want %x 19", sum, n, err, want)
	}
	fixtures.WriteText(t, filepath.Join(outside, "cyd", "c.txt"), "gamma text")
	fixtures.WriteText(t, filepath.Join(outside, "d.txt"), "delta text")
	if err := os.Symlink(filepath.Join(outside, "cyd"), filepath.Join(root, "econ", "cyd")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "d.txt"), filepath.Join(root, "econ", "ann", "d.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(root, "econ", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "gone"), filepath.Join(root, "econ", "broken")); err != nil {
		t.Fatal(err)
	}
	linked, n2, err := HashPath(root)
	if err != nil || n2 != n+20 {
		t.Fatalf("with links: %d bytes (%v), want %d", n2, err, n+20)
	}
	for _, f := range []string{filepath.Join(outside, "cyd", "c.txt"), filepath.Join(outside, "d.txt")} {
		before, _, _ := HashPath(root)
		fixtures.WriteText(t, f, "edited behind the link")
		after, _, err := HashPath(root)
		if err != nil || after == before {
			t.Fatalf("editing %s behind a link left the hash %s (%v)", f, after, err)
		}
	}
	if linked == sum {
		t.Fatal("the linked files did not enter the hash")
	}
}
