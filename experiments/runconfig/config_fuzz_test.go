package runconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dptext/internal/configfile"
)

// FuzzParseConfig feeds arbitrary text to the config parser and, when it accepts the text, to
// CheckComponents and Describe: none may panic, and every rejection is a configfile.Error naming the
// file. Seeds: the shipped configs, the valid test config and bad values from issue 13.
func FuzzParseConfig(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "configs", "*.toml"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seed configs in ../configs (%v)", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, seed := range []string{
		validConfig,
		strings.Replace(validConfig, "seed = 1", "seed = -1", 1),
		strings.Replace(validConfig, "seed = 1", "repeats = 9999999999999", 1),
		strings.Replace(validConfig, "epsilons = [30, 10]", "epsilons = [1e-40, -1, nan, inf]", 1),
		strings.Replace(validConfig, `name = "t"`, `name = ".."`, 1),
		strings.Replace(validConfig, `rating = "embedding"`, `rating = 3`, 1),
		"[corpus]\nformat = \"jsonl\"\npath = \"\"\n", "[[sets]]\n[[sets]]\n", "a = [", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		cfg, err := ParseConfig("fuzz.toml", src)
		if err != nil {
			var ce *configfile.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "fuzz.toml") {
				t.Fatalf("error %v: want a configfile.Error naming the file", err)
			}
			return
		}
		_ = Describe(cfg)
		if err := CheckComponents(cfg); err != nil && !strings.Contains(err.Error(), "fuzz.toml") {
			t.Fatalf("CheckComponents error %v does not name the file", err)
		}
	})
}
