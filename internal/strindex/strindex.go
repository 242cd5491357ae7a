// Package strindex holds Index, a map from strings to int32 indices that finds the short
// strings of text processing (words, character n-grams) faster than a Go map of strings.
package strindex

// Index maps strings to int32 values. Strings of 1 to MaxPacked bytes are kept in a flat
// open-addressing table of packed keys: the string's bytes in the low 56 bits (first byte
// lowest) and its length in the top 8, so two strings share a key only when they are equal, and
// 0 (length 0) marks an empty slot. A lookup there hashes one word and compares words, where a
// map of strings hashes the bytes, then follows the key's pointer to compare them. Longer
// strings (and the empty one) are kept in a map. An Index is safe for concurrent lookups once
// built; Add must not run concurrently with anything.
type Index struct {
	keys  []uint64
	vals  []int32
	shift uint // slot of key k: (k·packedMul) >> shift
	count int  // keys in the table
	long  map[string]int32
}

// MaxPacked is the longest string, in bytes, kept in the packed table.
const MaxPacked = 7

// packedMul is the multiplier of the slot hash (2⁶⁴ divided by the golden ratio, odd).
const packedMul = 0x9E3779B97F4A7C15

// pack returns the packed key of s and true when s has 1 to MaxPacked bytes.
func pack(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > MaxPacked {
		return 0, false
	}
	k := uint64(len(s)) << 56
	for i := 0; i < len(s); i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	return k, true
}

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
	keys, vals := x.keys, x.vals
	x.keys, x.vals, x.shift, x.count = make([]uint64, 1<<slotBits), make([]int32, 1<<slotBits), 64-slotBits, 0
	for j, k := range keys {
		if k != 0 {
			x.insert(k, vals[j])
		}
	}
}

// insert sets the value of packed key k to v.
func (x *Index) insert(k uint64, v int32) {
	mask := uint64(len(x.keys) - 1)
	h := (k * packedMul) >> x.shift
	for x.keys[h] != 0 && x.keys[h] != k {
		h = (h + 1) & mask
	}
	if x.keys[h] == 0 {
		x.count++
	}
	x.keys[h], x.vals[h] = k, v
}

// Set maps s to v (replacing an earlier value of s).
func (x *Index) Set(s string, v int32) {
	k, ok := pack(s)
	if !ok {
		x.long[s] = v
		return
	}
	if 2*(x.count+1) > len(x.keys) {
		x.resize(x.count + 1)
	}
	x.insert(k, v)
}

// Get returns the value of s and whether s was set.
func (x *Index) Get(s string) (int32, bool) {
	k, ok := pack(s)
	if !ok {
		v, found := x.long[s]
		return v, found
	}
	mask := uint64(len(x.keys) - 1)
	for h := (k * packedMul) >> x.shift; ; h = (h + 1) & mask {
		switch x.keys[h] {
		case k:
			return x.vals[h], true
		case 0:
			return 0, false
		}
	}
}

// Len is the number of strings set.
func (x *Index) Len() int { return x.count + len(x.long) }
