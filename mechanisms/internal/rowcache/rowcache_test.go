package rowcache

import (
	"slices"
	"testing"
)

// The cache keeps the limit most recently used rows: a get refreshes a row, a put of a cached
// id keeps the first row, and limit 0 caches nothing.
func TestRowCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := New(2)
	c.Put(1, []float64{1})
	c.Put(2, []float64{2})
	if _, ok := c.Get(1); !ok { // 1 is now more recent than 2
		t.Fatal("row 1 missing after two puts into a cache of 2")
	}
	c.Put(1, []float64{-1})
	c.Put(3, []float64{3}) // evicts 2
	if _, ok := c.Get(2); ok {
		t.Error("row 2, the least recently used, was not evicted")
	}
	for id, want := range map[int]float64{1: 1, 3: 3} {
		if row, ok := c.Get(id); !ok || row[0] != want {
			t.Errorf("row %d = %v (%v), want [%v]", id, row, ok, want)
		}
	}
	off := New(0)
	off.Put(1, []float64{1})
	if _, ok := off.Get(1); ok {
		t.Error("a cache with limit 0 kept a row")
	}
}

// lookup lists each uncached id once, in order of first appearance, and maps every id.
func TestRowCacheLookup(t *testing.T) {
	c := New(4)
	c.Put(7, []float64{7})
	rows, missing := c.Lookup([]int{5, 7, 5, 9, 7, 9, 2})
	if !slices.Equal(missing, []int{5, 9, 2}) {
		t.Errorf("missing %v, want [5 9 2]", missing)
	}
	if len(rows) != 4 || rows[7][0] != 7 || rows[5] != nil || rows[9] != nil || rows[2] != nil {
		t.Errorf("rows %v, want 7 cached and nil rows for 5, 9 and 2", rows)
	}
	if rows, missing := c.Lookup(nil); len(rows) != 0 || missing != nil {
		t.Errorf("lookup(nil) = %v, %v; want nothing", rows, missing)
	}
}
