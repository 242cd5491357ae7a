package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// Epsilon's one text form is the shortest exact decimal (the form results.csv, cell paths,
// stream names and cache keys have always used), "" when absent; it reads back to the same
// value, orders absent first and then larger first, and decodes from a config's numbers only.
func TestEpsilonFormsAndOrder(t *testing.T) {
	for _, v := range []float64{10, 12.5, 0.1, 1e-05, 47.5, 1e21, 3.0000000000000004} {
		e := EpsilonOf(v)
		if got, want := e.String(), strconv.FormatFloat(v, 'g', -1, 64); got != want {
			t.Errorf("EpsilonOf(%v).String() = %q, want %q", v, got, want)
		}
		back, err := ParseEpsilon(e.String())
		if err != nil || back != e || back.Value() != v || !back.Set() {
			t.Errorf("ParseEpsilon(%q) = %v, %v; want %v", e.String(), back, err, v)
		}
	}
	if NoEpsilon.String() != "" || NoEpsilon.Set() || !math.IsNaN(NoEpsilon.Value()) {
		t.Errorf("NoEpsilon: %q, set %v, value %v; want \"\", false, NaN", NoEpsilon.String(), NoEpsilon.Set(), NoEpsilon.Value())
	}
	if e, err := ParseEpsilon(""); err != nil || e != NoEpsilon {
		t.Errorf(`ParseEpsilon("") = %v, %v; want NoEpsilon`, e, err)
	}
	for _, bad := range []string{"NaN", "x", "1,5"} {
		if _, err := ParseEpsilon(bad); err == nil {
			t.Errorf("ParseEpsilon(%q) accepted", bad)
		}
	}
	order := []Epsilon{NoEpsilon, EpsilonOf(30), EpsilonOf(10), EpsilonOf(0.5)}
	for i := range order {
		for j := range order {
			if got, want := order[i].Compare(order[j]), cmpInt(i, j); got != want {
				t.Errorf("%q.Compare(%q) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
	var doc struct {
		E []Epsilon `toml:"e"`
	}
	if _, err := toml.Decode("e = [10, 2.5]", &doc); err != nil || len(doc.E) != 2 || doc.E[0] != EpsilonOf(10) || doc.E[1] != EpsilonOf(2.5) {
		t.Errorf("decoding [10, 2.5]: %v, %v", doc.E, err)
	}
	for _, bad := range []string{`e = ["10"]`, `e = [true]`, `e = [9007199254740993]`} {
		if _, err := toml.Decode(bad, &doc); err == nil || !strings.Contains(err.Error(), "want a number") && !strings.Contains(err.Error(), "exactly") {
			t.Errorf("%s: got %v, want a refusal", bad, err)
		}
	}
}

func cmpInt(i, j int) int {
	switch {
	case i < j:
		return -1
	case i > j:
		return 1
	}
	return 0
}
