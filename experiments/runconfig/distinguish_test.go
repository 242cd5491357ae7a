package runconfig

import (
	"slices"
	"strings"
	"testing"

	"dptext/mechanisms/distinguish"
)

// TestDistinguishTable: an empty [distinguish] takes the defaults; a bad value is an error
// naming its key and line.
func TestDistinguishTable(t *testing.T) {
	cfg, err := ParseConfig("ok.toml", validConfig+"\n[distinguish]\n")
	if err != nil {
		t.Fatal(err)
	}
	d, def := cfg.Distinguish.Options(), distinguish.DefaultOptions()
	if d.Pairs != def.Pairs || d.Releases != def.Releases || !slices.Equal(d.Distances, def.Distances) || d.Alpha != def.Alpha {
		t.Errorf("defaults %+v, want %+v", d, def)
	}
	for _, c := range []struct{ table, want string }{
		{"pairs = 1", "ok.toml:24: distinguish.pairs: 1: want 2 to 10000"},
		{"releases = 100000", "distinguish.releases: 100000: want 2 to 1000"},
		{"words = 10\ndistances = [1, 25]", "ok.toml:25: distinguish.distances: [1 25]: 25: want 0 (whole documents) or 1 to words = 10"},
		{"distinguishers = [\"oracle\"]", "distinguish.distinguishers"},
		{"alpha = 0.7", "distinguish.alpha: 0.7"},
	} {
		_, err := ParseConfig("ok.toml", validConfig+"\n[distinguish]\n"+c.table+"\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.table, err, c.want)
		}
	}
}

// TestDistinguishVerdictKeys: verdict_levels needs a [verdict] table, positive finite levels
// and a verdict_distance among the distances (default the first).
func TestDistinguishVerdictKeys(t *testing.T) {
	verdict := "\n[[scorers]]\nname = \"cosine\"\n[verdict]\nattack = \"sr-nn\"\nabove_chance = [0.1]\nutilities = [\"cosine\"]\n"
	cfg, err := ParseConfig("ok.toml", validConfig+verdict+"[distinguish]\nverdict_levels = [1]\n")
	if err != nil {
		t.Fatal(err)
	}
	if *cfg.Distinguish.VerdictDistance != 1 {
		t.Errorf("verdict_distance defaults to %d: want the first distance, 1", *cfg.Distinguish.VerdictDistance)
	}
	for _, c := range []struct{ text, want string }{
		{validConfig + "\n[distinguish]\nverdict_levels = [1]\n", "distinguish.verdict_levels: [1]: needs a [verdict] table"},
		{validConfig + verdict + "[distinguish]\nverdict_levels = [0]\n", "distinguish.verdict_levels: [0]: 0: want finite levels above 0"},
		{validConfig + verdict + "[distinguish]\nverdict_levels = [1]\nverdict_distance = 7\n", "distinguish.verdict_distance: 7: want one of distances = [1 5 25 0]"},
	} {
		if _, err := ParseConfig("ok.toml", c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}
