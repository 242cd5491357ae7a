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

// RemoveRunOutputs removes the fixed output names and exactly the plots and tf/*.tsv files the
// manifest lists: an unlisted file named like a plot or in tf/ stays, a listed name that is now
// a folder stays, and a listed path outside the folder's top level and tf/ ("../x.png",
// "tf/../../x.tsv", "sub/x.png") is ignored, so a hand-edited manifest cannot delete elsewhere.
// The mutant: removing every listed path (no listedOutput check) deletes ../outside.png.
func TestRemoveRunOutputsRemovesOnlyWhatTheManifestLists(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "run")
	files := []string{"results.csv", "table.md", "accuracy-1.png", "accuracy-2.png", "tf/listed.tsv", "tf/mine.tsv", "sub/x.png", "notes.txt"}
	for _, f := range append(files, "../outside.png") {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "frontier-1.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Tool: "dptext", Status: StatusComplete,
		Outputs: []string{"results.csv", "accuracy-1.png", "tf/listed.tsv", "frontier-1.png", "../outside.png", "tf/../../outside.png", "sub/x.png", "notes.txt"}}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := RemoveRunOutputs(dir); err != nil {
		t.Fatal(err)
	}
	gone := map[string]bool{"results.csv": true, "table.md": true, "accuracy-1.png": true, "tf/listed.tsv": true}
	for _, f := range append(files, "../outside.png", "frontier-1.png") {
		_, err := os.Stat(filepath.Join(dir, f))
		if exists := err == nil; exists == gone[f] {
			t.Errorf("%s: exists %v, want %v", f, exists, !gone[f])
		}
	}
}
