package runconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config is bounded before the TOML parser sees it: a device such as /dev/zero, a file above
// maxConfigBytes and inline tables nested beyond maxConfigNesting are refused with the file
// (and line) named; every shipped config, and brackets inside strings and comments, pass.
func TestConfigSizeAndNestingAreBoundedBeforeParsing(t *testing.T) {
	shipped, _ := filepath.Glob("../configs/*.toml")
	if len(shipped) == 0 {
		t.Fatal("no shipped configs found")
	}
	for _, f := range shipped {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkConfigShape(f, string(src)); err != nil {
			t.Errorf("shipped config refused: %v", err)
		}
	}
	if _, err := LoadConfig("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file") {
		t.Errorf("/dev/zero: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(big, []byte("name = \"x\"\n"+strings.Repeat("# padding\n", maxConfigBytes/10+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(big); err == nil || !strings.Contains(err.Error(), "at most 1048576 bytes") {
		t.Errorf("big config: %v", err)
	}
	deep := "name = \"x\"\n\nx = " + strings.Repeat("{a = ", 10000) + "1" + strings.Repeat("}", 10000) + "\n"
	if _, err := ParseConfig("deep.toml", deep); err == nil || !strings.Contains(err.Error(), "deep.toml:3: arrays and inline tables nest deeper than 16") {
		t.Errorf("10,000 nested inline tables: %v", err)
	}
	ok := "name = \"x\" # [[[[[[[[[[[[[[[[[[[[\ndescription = \"\"\"\n{{{{{{{{{{{{{{{{{{{{{{\n\"\"\"\nlabel = '[[[[[[[[[[[[[[[[[[[[[['\n"
	if err := checkConfigShape("ok.toml", ok); err != nil {
		t.Errorf("brackets in strings and comments counted: %v", err)
	}
}
