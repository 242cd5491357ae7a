package configfile

import (
	"strings"
	"testing"
)

type innerOptions struct {
	N int `toml:"n"`
}

type baseOptions struct {
	Order string `toml:"order"`
}

type testOptions struct {
	baseOptions
	K     int               `toml:"k"`
	Inner innerOptions      `toml:"inner"`
	Named map[string]string `toml:"named"`
	Skip  int               `toml:"-"`
}

// A params table decodes straight into the options (embedded structs flattened, nested tables,
// maps, keys matched ignoring case as the decoder does) and refuses every key the options lack,
// naming it and the valid keys. The mutant of the strictness check is decoding alone: it
// leaves the unknown keys in place without an error.
func TestParamsDecodeStrictly(t *testing.T) {
	p, err := ParseParams("command line", "x", `order = "bag", K = 3, inner.n = 2, named = {a = "b"}`)
	if err != nil {
		t.Fatal(err)
	}
	var o testOptions
	if err := p.Decode(&o); err != nil || o.Order != "bag" || o.K != 3 || o.Inner.N != 2 || o.Named["a"] != "b" {
		t.Fatalf("got %+v, %v", o, err)
	}
	if rec := p.Record(); rec["order"] != "bag" || rec["K"] != int64(3) {
		t.Errorf("record %v", rec)
	}
	for body, want := range map[string]string{
		`ordr = "bag"`:   `command line: params.ordr: unknown parameter "ordr" of x; valid: order, k, inner, named`,
		`inner.m = 1`:    `command line: params.inner.m: unknown parameter "inner.m" of x`,
		`Skip = 1`:       `command line: params.Skip: unknown parameter "Skip"`,
		`k = "three"`:    `command line: params.k: `,
		`k = 2000000000`: `command line: params.k: 2000000000: at most 1000000000`,
	} {
		p, err := ParseParams("command line", "x", body)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		var o testOptions
		if err := p.Decode(&o); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %q…", body, err, want)
		}
	}
	// The mutant: the decoder alone takes an unknown key silently.
	p, _ = ParseParams("command line", "x", `ordr = "bag"`)
	var m testOptions
	p.src.mu.Lock()
	err = p.src.md.PrimitiveDecode(p.table, &m)
	p.src.mu.Unlock()
	if err != nil {
		t.Fatalf("the decoder itself refused an unknown key (%v): the strictness check may be redundant", err)
	}
}
