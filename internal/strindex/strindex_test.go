package strindex

import (
	"testing"

	"dptext/internal/rngs"
)

// Every Get must agree with a Go map given the same Sets, for strings of 0 to 24 bytes (both
// sides of MaxPacked and of the 8-byte word), multi-byte runes, and strings that differ only by
// a leading or trailing NUL byte or by their length, set and overwritten in random order while
// the table grows from a size hint of 1; and Len counts each string once. Mutants: the length
// left out of the packed key → "ab" and "ab\x00" share a key, and one is found under the
// other's value; the second word not shifted → bytes 0–7 counted twice for strings of 9 to 15
// bytes, and strings that differ in them mixed up.
func TestIndexAgreesWithMap(t *testing.T) {
	rng := rngs.New(5, "strindex")
	alphabet := []string{"a", "b", "\x00", "é", "日", " "}
	draw := func() string {
		var s string
		for range rng.IntN(18) {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		return s
	}
	fixed := []string{"", "a", "ab", "ab\x00", "\x00ab", "abcdefg", "abcdefgh", "abcdefgX", "ab\x00\x00\x00\x00\x00", "ab\x00\x00\x00\x00\x00\x00",
		"abcdefghi", "abcdefghi\x00", "Xbcdefghi", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnoX", "\x00\x00\x00\x00\x00\x00\x00\x00\x00"}
	x, want := New(1), map[string]int32{}
	for i := range 4000 {
		s := draw()
		if i < len(fixed) {
			s = fixed[i]
		}
		v := int32(rng.IntN(1 << 30))
		x.Set(s, v)
		want[s] = v
	}
	if x.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", x.Len(), len(want))
	}
	long := 0
	for range 20000 {
		s := draw()
		if rng.IntN(4) == 0 {
			s = fixed[rng.IntN(len(fixed))]
		}
		got, ok := x.Get(s)
		w, wok := want[s]
		if ok != wok || got != w {
			t.Fatalf("Get(%q) = %d, %v; the map says %d, %v", s, got, ok, w, wok)
		}
		if _, _, packed := pack(s); !packed && wok {
			long++
		}
	}
	if long == 0 {
		t.Fatal("no string found in the map of long strings: the test does not cover them")
	}
}

// BenchmarkIndex looks up 5,000 two- to five-byte strings (a document's character n-grams) in
// an Index and in a Go map of 60,000 such strings.
func BenchmarkIndex(b *testing.B) {
	rng := rngs.New(6, "strindex/bench")
	word := func() string {
		n := 2 + rng.IntN(4)
		s := make([]byte, n)
		for i := range s {
			s[i] = byte('a' + rng.IntN(26))
		}
		return string(s)
	}
	x, m := New(60000), make(map[string]int32, 60000)
	for i := range 60000 {
		s := word()
		x.Set(s, int32(i))
		m[s] = int32(i)
	}
	probes := make([]string, 5000)
	for i := range probes {
		probes[i] = word()
	}
	var sink int32
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			for _, s := range probes {
				v, _ := x.Get(s)
				sink += v
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			for _, s := range probes {
				sink += m[s]
			}
		}
	})
	_ = sink
}
