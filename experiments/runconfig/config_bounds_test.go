package runconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad values anywhere in a config give an error naming file:line and key, never a wrapped or
// runaway value.
func TestConfigRejectsOutOfRangeValuesWithLines(t *testing.T) {
	eps := strings.Repeat("1, ", 1000) + "2"
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"negative seed", "seed = 1", "seed = -1", "c.toml:2: seed: -1: want an integer from 0"},
		{"dot-dot name", `name = "t"`, `name = ".."`, `c.toml:1: name: ".."`},
		{"slash name", `name = "t"`, `name = "a/x"`, `c.toml:1: name: "a/x" must not contain slashes`},
		{"huge repeats", "seed = 1", "seed = 1\nrepeats = 9999999999999", "c.toml:3: repeats: 9999999999999: at most 10000"},
		{"huge ε grid", "epsilons = [30, 10]", "epsilons = [" + eps + "]", "c.toml:16: mechanisms[1].epsilons: 1001: at most 1000"},
		{"huge authors", "authors = 4", "authors = 4000000000", "c.toml:9: sets[0].authors: 4000000000: at most 1000000000"},
		{"type error in params", `rating = "embedding"`, `rating = "embedding"` + "\ncandidates = \"many\"", "c.toml:19: mechanisms[1].params.candidates: incompatible types"},
		{"huge parameter", `rating = "embedding"`, `rating = "embedding"` + "\ncandidates = 9999999999999", "c.toml:19: mechanisms[1].params.candidates: 9999999999999: at most 1000000000"},
		{"duplicate label", "name = \"expmech\"\nepsilons", "name = \"none\"\nepsilons", "c.toml:14: mechanisms[1].label: mechanism \"none\" appears twice"},
		{"plot-name collision", "[[mechanisms]]\nname = \"none\"", "[[sets]]\nname = \"a/b\"\nauthors = 4\n[[sets]]\nname = \"a_b\"\nauthors = 4\n[[mechanisms]]\nname = \"none\"",
			`c.toml:15: sets[2].name: "a_b" and "a/b" (line 12) would share plot files`},
	} {
		src := strings.Replace(validConfig, tc.from, tc.to, 1)
		if src == validConfig {
			t.Fatalf("%s: the edit changed nothing", tc.name)
		}
		_, err := ParseConfig("c.toml", src)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "line 1 (") {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A parameter-range error found by building the component names the params table's line, and
// a type error in a nested params table names the nested key's line.
func TestComponentErrorsCarryLines(t *testing.T) {
	src := strings.Replace(validConfig, `rating = "embedding"`, `rating = "context"`+"\n[mechanisms.params.language_model]\norder = \"three\"", 1)
	_, err := ParseConfig("c.toml", src)
	if err == nil || !strings.Contains(err.Error(), "c.toml:20: mechanisms[1].params.language_model.order:") {
		t.Errorf("nested type error: %v", err)
	}
	src = strings.Replace(validConfig, `rating = "embedding"`, `rating = "embedding"`+"\ncandidates = -5", 1)
	cfg, err := ParseConfig("c.toml", src)
	if err == nil {
		err = CheckComponents(cfg)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "c.toml:19: mechanisms[1].params.candidates: expmech: candidates = -5: ") {
		t.Errorf("range error: %v", err)
	}
}

// `check` builds components without writing anything, even a cache folder named in params.
func TestCheckCreatesNoDirectories(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made", "by", "check")
	src := strings.Replace(validConfig, "[[mechanisms]]\nname = \"none\"",
		"[[mechanisms]]\nname = \"syntf\"\nepsilons = [1]\n[mechanisms.params]\nell_cache_dir = \""+filepath.ToSlash(dir)+"\"", 1)
	cfg, err := ParseConfig("c.toml", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckComponents(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("check created %s", dir)
	}
}
