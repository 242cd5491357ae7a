package configfile

import "testing"

func TestLocateKeysIndexesArrayTables(t *testing.T) {
	src := `name = "x"
[corpus]
format = "sotu"

[[mechanisms]]
name = "none"

[[mechanisms]]
name = "emd"
[mechanisms.params]
oov = "keep"

[[report.columns]]
scorer = "a"
[[report.columns]]
scorer = "b"
`
	kl := Locate(src)
	cases := []struct {
		path, key string
		line      int
	}{
		{"", "name", 1}, {"corpus", "format", 3}, {"mechanisms[0]", "name", 6}, {"mechanisms[1]", "name", 9},
		{"mechanisms[1].params", "oov", 11}, {"report.columns[1]", "scorer", 16},
	}
	for _, c := range cases {
		if got := kl.Line(c.path, c.key); got != c.line {
			t.Errorf("line(%q, %q) = %d, want %d (all: %v)", c.path, c.key, got, c.line, kl)
		}
	}
	if kl.Find("mechanisms.params", "oov") != 11 || !kl.Has("report.columns") || kl.Has("sets") {
		t.Errorf("find/has wrong: %v", kl)
	}
}
