package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder whose manifest.json is damaged or another tool's is refused, and the refusal says
// what is wrong with the manifest rather than "no manifest.json" beside a list holding it. The
// mutant: the former fixed text "(no manifest.json)" fails every case but the first.
func TestCheckOutDirSaysWhatIsWrongWithTheManifest(t *testing.T) {
	for _, c := range []struct {
		manifest string // "" for none; "/" for a folder
		want     string
	}{
		{"", "(no manifest.json)"},
		{`{"tool": "other-tool", "status": "complete"}`, `(its manifest.json is not dptext's: "tool" is "other-tool")`},
		{`{"status": "complete"}`, `(its manifest.json is not dptext's: it has no "tool": "dptext")`},
		{`{"tool": "dptext", "status": `, "(its manifest.json is damaged or not a manifest:"},
		{`not json at all`, "(its manifest.json is damaged or not a manifest: not valid JSON at byte 2)"},
		{`{"tool": 7}`, "(its manifest.json is damaged or not a manifest: json: cannot unmarshal number"},
		{"/", "(its manifest.json is not a regular file)"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
		switch c.manifest {
		case "":
		case "/":
			if err := os.Mkdir(filepath.Join(dir, "manifest.json"), 0o755); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(c.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err := CheckOutDir(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "notes.txt") {
			t.Errorf("manifest %q: %v; want a refusal saying %q and listing notes.txt", c.manifest, err, c.want)
		}
	}
}
