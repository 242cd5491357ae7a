package rundir

import (
	"os"
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

// CellCache gives ReadCell's answers: a file read again with the same bytes comes back as the
// record parsed the first time (the same pointer: not decoded again), a file rewritten with
// other content is parsed again (its new rows), a file damaged after it was cached is refused,
// and a record is never handed out for another cell path. Mutant: entries found by file alone,
// without comparing the checksum → the rewritten file's old rows come back.
func TestCellCacheReparsesChangedFiles(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/c.cell"
	const path = "set=a/mech=m/eps=1/rep=0"
	write := func(rows string) {
		t.Helper()
		if err := WriteCell(file, &CellRecord{Fingerprint: "f", Cell: path, Rows: rows}); err != nil {
			t.Fatal(err)
		}
	}
	header := "set,mechanism,epsilon,repeat,scorer,metric,value\n"
	write(header + "a,m,1,0,s,accuracy,0.5\n")
	var cache CellCache
	first, rows, err := cache.ReadRows(file, path)
	if err != nil || len(rows) != 1 || rows[0].Value != 0.5 {
		t.Fatalf("first read: %v, %v", rows, err)
	}
	again, err := cache.Read(file, path)
	if err != nil || again != first {
		t.Fatalf("the same bytes again: %p (%v), want the cached record %p", again, err, first)
	}
	write(header + "a,m,1,0,s,accuracy,0.75\n")
	changed, rows, err := cache.ReadRows(file, path)
	if err != nil || changed == first || len(rows) != 1 || rows[0].Value != 0.75 {
		t.Fatalf("after the file changed: %v (%v), want its new row", rows, err)
	}
	if _, err := cache.Read(file, "set=a/mech=other/eps=1/rep=0"); err == nil || !strings.Contains(err.Error(), "holds cell") {
		t.Errorf("the cached file read for another cell: %v, want it refused", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Read(file, path); err == nil {
		t.Error("a file cut short after it was cached: read without error")
	}
}

// CellCache keeps at most MaxBytes of cell files: past it a file is decoded on every read (a new
// record each time) while the files kept stay kept. Mutant: the bound not checked → the second
// file comes back as the same record.
func TestCellCacheKeepsAtMostMaxBytes(t *testing.T) {
	dir := t.TempDir()
	header := "set,mechanism,epsilon,repeat,scorer,metric,value\n"
	write := func(name, path, rows string) string {
		t.Helper()
		file := dir + "/" + name
		if err := WriteCell(file, &CellRecord{Fingerprint: "f", Cell: path, Rows: header + rows}); err != nil {
			t.Fatal(err)
		}
		return file
	}
	a := write("a.cell", "set=a/mech=m/eps=1/rep=0", "a,m,1,0,s,accuracy,0.5\n")
	b := write("b.cell", "set=a/mech=m/eps=2/rep=0", "a,m,2,0,s,accuracy,0.25\n")
	body, _, err := readVerified(a)
	if err != nil {
		t.Fatal(err)
	}
	cache := CellCache{MaxBytes: int64(len(body)) + 10}
	first, _ := cache.Read(a, "set=a/mech=m/eps=1/rep=0")
	b1, _ := cache.Read(b, "set=a/mech=m/eps=2/rep=0")
	b2, err := cache.Read(b, "set=a/mech=m/eps=2/rep=0")
	if err != nil || b1 == nil || b1 == b2 {
		t.Fatalf("a file past the bound: the same record twice (%p, %p, %v), want it decoded each time", b1, b2, err)
	}
	if again, _ := cache.Read(a, "set=a/mech=m/eps=1/rep=0"); again != first {
		t.Error("the file within the bound was not kept")
	}
	if cache.bytes > cache.MaxBytes {
		t.Errorf("%d bytes kept, bound %d", cache.bytes, cache.MaxBytes)
	}
}
