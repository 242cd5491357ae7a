package runconfig

import (
	"slices"
	"strings"
	"testing"

	"dptext/distinguish"
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
		{"pairs = 1", "ok.toml:24: distinguish.pairs: 1: want at least 2"},
		{"releases = 100000", "distinguish.releases: 100000: want at most"},
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
