// Package strindex holds Index, a map from strings to int32 indices that finds the short
// strings of text processing (words, character n-grams) faster than a Go map of strings.
package strindex

import (
	"encoding/binary"
	"unsafe"
)

// Index maps strings to int32 values. Strings of 1 to MaxPacked bytes are kept in a flat
// open-addressing table of packed keys, one 24-byte slot each (key and value share a cache
// line): bytes 0–7 of the string in lo (first byte lowest), bytes 8–14 in the low 56 bits of
// hi and its length in the top 8, so two strings share a key only when they are equal, and
// hi = 0 (length 0) marks an empty slot. A lookup there packs two words, hashes them and
// compares words, where a map of strings hashes the bytes, then follows the key's pointer to
// compare them. Longer strings (and the empty one) are kept in a map. An Index is safe for
// concurrent lookups once built; Set must not run concurrently with anything.
type Index struct {
	slots []slot
	shift uint // slot of a key: hash >> shift
	count int  // keys in the table
	long  map[string]int32
}

// slot is one entry of the packed table.
type slot struct {
	lo, hi uint64
	val    int32
}

// MaxPacked is the longest string, in bytes, kept in the packed table.
const MaxPacked = 15

// The multipliers of the slot hash (odd; the first is 2⁶⁴ divided by the golden ratio).
const (
	hashMulLo = 0x9E3779B97F4A7C15
	hashMulHi = 0xC2B2AE3D27D4EB4F
)

// pack returns the packed key of s and true when s has 1 to MaxPacked bytes. Strings of 8 or
// more bytes are read as two overlapping little-endian words, the second shifted so that it
// holds bytes 8 onwards only.
func pack(s string) (lo, hi uint64, ok bool) {
	n := len(s)
	if n == 0 || n > MaxPacked {
		return 0, 0, false
	}
	if n < 8 {
		for i := 0; i < n; i++ {
			lo |= uint64(s[i]) << (8 * i)
		}
		return lo, uint64(n) << 56, true
	}
	b := unsafe.Slice(unsafe.StringData(s), n)
	lo = binary.LittleEndian.Uint64(b)
	if n > 8 {
		hi = binary.LittleEndian.Uint64(b[n-8:]) >> (8 * (16 - n))
	}
	return lo, hi | uint64(n)<<56, true
}

// hash returns the slot hash of a packed key.
func hash(lo, hi uint64) uint64 { return (lo ^ (hi * hashMulHi)) * hashMulLo }

// New returns an empty Index sized for about n strings (it grows past them).
func New(n int) *Index {
	x := &Index{long: map[string]int32{}}
	x.resize(n)
	return x
}

// resize makes the table room for n packed keys at a load of at most one half, keeping its keys.
func (x *Index) resize(n int) {
	slotBits := uint(3)
	for 1<<slotBits < 2*n {
		slotBits++
	}
	old := x.slots
	x.slots, x.shift, x.count = make([]slot, 1<<slotBits), 64-slotBits, 0
	for _, s := range old {
		if s.hi != 0 {
			x.insert(s.lo, s.hi, s.val)
		}
	}
}

// insert sets the value of the packed key (lo, hi) to v.
func (x *Index) insert(lo, hi uint64, v int32) {
	mask := uint64(len(x.slots) - 1)
	h := hash(lo, hi) >> x.shift
	for x.slots[h].hi != 0 && (x.slots[h].lo != lo || x.slots[h].hi != hi) {
		h = (h + 1) & mask
	}
	if x.slots[h].hi == 0 {
		x.count++
	}
	x.slots[h] = slot{lo, hi, v}
}

// Set maps s to v (replacing an earlier value of s).
func (x *Index) Set(s string, v int32) {
	lo, hi, ok := pack(s)
	if !ok {
		x.long[s] = v
		return
	}
	if 2*(x.count+1) > len(x.slots) {
		x.resize(x.count + 1)
	}
	x.insert(lo, hi, v)
}

// Get returns the value of s and whether s was set.
func (x *Index) Get(s string) (int32, bool) {
	lo, hi, ok := pack(s)
	if !ok {
		v, found := x.long[s]
		return v, found
	}
	mask := uint64(len(x.slots) - 1)
	for h := hash(lo, hi) >> x.shift; ; h = (h + 1) & mask {
		e := &x.slots[h]
		if e.hi == hi && e.lo == lo {
			return e.val, true
		}
		if e.hi == 0 {
			return 0, false
		}
	}
}

// Len is the number of strings set.
func (x *Index) Len() int { return x.count + len(x.long) }
