package rundir

import (
	"strings"
	"testing"
)

// Labels that read alike ("x=y" and "x-y", "a/b" and "a__b") get distinct cell files.
func TestCellFileNamesAreInjective(t *testing.T) {
	pairs := [][2]string{{"set=4/mech=x=y/eps=1/rep=0", "set=4/mech=x-y/eps=1/rep=0"},
		{"set=4/mech=a/b/eps=1/rep=0", "set=4/mech=a__b/eps=1/rep=0"}}
	for _, p := range pairs {
		if CellFile(p[0]) == CellFile(p[1]) {
			t.Errorf("%q and %q share the cell file %s", p[0], p[1], CellFile(p[0]))
		}
	}
	long := "set=4/mech=" + strings.Repeat("m", 500) + "/eps=1/rep=0"
	if n := len(CellFile(long)); n > 200 {
		t.Errorf("cell file name of %d bytes", n)
	}
}
