package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// With TMPDIR missing or a file, CheckTempDir fails naming TMPDIR, and drawing a PDF returns an
// error instead of vgpdf's panic with a goroutine dump. The drawing runs in a fresh process
// (this test binary, run again with DPTEXT_RENDER_CHILD set): vgpdf converts each font once per
// process, so in this one an earlier PDF may already have made the fonts. The mutants: without
// the recover in render the child dies with "panic:"; without CheckTempDir's MkdirTemp it
// passes a missing TMPDIR.
func TestRenderWithoutATempDir(t *testing.T) {
	if os.Getenv("DPTEXT_RENDER_CHILD") == "1" {
		f := &figure{title: "t", panels: []panel{{}}}
		if _, err := f.render("pdf"); err != nil {
			os.Stdout.WriteString("render error: " + err.Error() + "\n")
			return
		}
		os.Stdout.WriteString("render succeeded\n")
		return
	}
	base := t.TempDir()
	file := filepath.Join(base, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tmp := range []string{filepath.Join(base, "missing"), file} {
		t.Run(filepath.Base(tmp), func(t *testing.T) {
			t.Setenv("TMPDIR", tmp)
			if err := CheckTempDir(); err == nil || !strings.Contains(err.Error(), "TMPDIR") || !strings.Contains(err.Error(), tmp) {
				t.Errorf("CheckTempDir = %v; want an error naming TMPDIR %s", err, tmp)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRenderWithoutATempDir$", "-test.count=1")
			cmd.Env = append(os.Environ(), "DPTEXT_RENDER_CHILD=1", "TMPDIR="+tmp)
			out, err := cmd.CombinedOutput()
			if err != nil || strings.Contains(string(out), "panic:") || !strings.Contains(string(out), "render error: drawing the pdf failed") {
				t.Errorf("drawing a PDF with TMPDIR %s: %v\n%s", tmp, err, out)
			}
		})
	}
	if err := CheckTempDir(); err != nil {
		t.Errorf("with the test's own TMPDIR: %v", err)
	}
}
