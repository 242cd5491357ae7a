package runconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigCorporaKeys(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"author":"a","text":"x","topic":"t"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "name = \"x\"\n[corpus]\nformat = \"jsonl\"\npath = \"c.jsonl\"\n[protocol]\n%PROTO%\n[[sets]]\nname = \"20\"\nauthors = 20\n[[mechanisms]]\nname = \"none\"\n[[scorers]]\nname = \"sr-nn\"\n"
	for proto, want := range map[string]string{
		"topics = 1":              "c.toml:6: protocol.topics: 1: want a number of topics from 2",
		"topics = [\"a\"]":        "protocol.topics: 1 name(s): want at least 2",
		"topics = [\"a\", \"a\"]": `protocol.topics: "a" appears twice`,
		"topics = [\"a\", 3]":     "protocol.topics: entry 2 is 3",
		"topics = 2.5":            "protocol.topics: 2.5: want a number",
		"resample = \"stories\"":  `c.toml:6: protocol.resample: "stories": want "none", "snippets"`,
		"kind = \"classification\"\nresample = \"authors\"": "applies to the authorship protocol",
	} {
		src := strings.Replace(base, "%PROTO%", proto, 1)
		_, err := ParseConfig(filepath.Join(dir, "c.toml"), src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", proto, err, want)
		}
	}
	cfg, err := ParseConfig(filepath.Join(dir, "c.toml"), strings.Replace(base, "%PROTO%", "topics = [\"sea\", \"land\"]\nresample = \"authors\"", 1))
	if err != nil || cfg.Protocol.Topics.Count != 0 || len(cfg.Protocol.Topics.Names) != 2 || cfg.Protocol.Resample != ResampleAuthors {
		t.Errorf("valid topics list: %v %+v", err, cfg)
	}
	cfg, err = ParseConfig(filepath.Join(dir, "c.toml"), strings.Replace(base, "%PROTO%", "", 1))
	if err != nil || cfg.Protocol.Topics.Count != 2 || cfg.Protocol.Resample != ResampleNone {
		t.Errorf("defaults: %v %+v", err, cfg.Protocol)
	}
	_, err = ParseConfig(filepath.Join(dir, "c.toml"), strings.Replace(strings.Replace(base, "%PROTO%", "", 1), "path = \"c.jsonl\"", "path = \"c.jsonl\"\nlanguage = \"en\"", 1))
	if err == nil || !strings.Contains(err.Error(), `corpus.language: applies to format "pan" only`) {
		t.Errorf("language on jsonl: %v", err)
	}
	for ref, want := range map[string]string{
		"set = \"50\"\nauthors = 50\nlabel = \"sr-nn\"\nvalues = { none = 1 }":                      `report.references[0].set: "50" is not a set of this config; sets: 20`,
		"set = \"20\"\nauthors = 20\nlabel = \"sr-nn\"\nmechanism = \"emd\"\nvalues = { none = 1 }": `report.references[0].mechanism: "emd" is not a mechanism`,
	} {
		src := strings.Replace(base, "%PROTO%", "", 1) + "[[report.references]]\n" + ref + "\n"
		_, err := ParseConfig(filepath.Join(dir, "c.toml"), src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("reference %q: got %v, want %q", ref, err, want)
		}
	}
}
