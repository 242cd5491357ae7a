package rngs

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkStream compares n values of NewChaCha8(key) with math/rand/v2's ChaCha8 of the same key.
func checkStream(t *testing.T, key [32]byte, n int) {
	t.Helper()
	ours, std := NewChaCha8(key), rand.NewChaCha8(key)
	for i := range n {
		if a, b := ours.Uint64(), std.Uint64(); a != b {
			t.Fatalf("key %x: value %d is %#x, math/rand/v2's is %#x", key[:4], i, a, b)
		}
	}
}

// ChaCha8 is math/rand/v2's stream, value for value: 40 keys (the zero key, one-bit keys,
// derived ones) over 2,000 values each (16 periods, so 16 reseedings), with the assembly and
// with the fallback. Any difference in a word, a rotation, the counters, the feed-forward, the
// layout of the buffers or the reseeding changes the first period's values or the next
// period's key (mutants: rotation 12 → 11 fails at value 0; the key's first word also added
// to word 12 fails at value 148 of the zero key, the first of word 12 under a nonzero key;
// reseeding from values 120–123 fails at value 124).
func TestChaCha8IsMathRandsStream(t *testing.T) {
	keys := [][32]byte{{}}
	for bit := range 8 {
		var k [32]byte
		k[bit*4] = 1 << bit
		keys = append(keys, k)
	}
	for i := range 31 {
		keys = append(keys, Key(uint64(i), fmt.Sprintf("chacha8/%d", i)))
	}
	for _, kernel := range []bool{true, false} {
		if kernel && !hasPeriodKernel {
			t.Log("no AVX-512 on this CPU: the assembly is not tested here")
			continue
		}
		t.Run(fmt.Sprintf("kernel=%v", kernel), func(t *testing.T) {
			saved := hasPeriodKernel
			hasPeriodKernel = kernel
			defer func() { hasPeriodKernel = saved }()
			for _, k := range keys {
				checkStream(t, k, 2000)
			}
		})
	}
}

// BenchmarkChaCha8 draws values from this generator and from math/rand/v2's in the same
// process (compare the two lines' ns/op).
func BenchmarkChaCha8(b *testing.B) {
	key := Key(1, "bench")
	b.Run("rngs", func(b *testing.B) {
		c := NewChaCha8(key)
		var s uint64
		for b.Loop() {
			s += c.Uint64()
		}
		sink = s
	})
	b.Run("math-rand", func(b *testing.B) {
		c := rand.NewChaCha8(key)
		var s uint64
		for b.Loop() {
			s += c.Uint64()
		}
		sink = s
	})
}

var sink uint64
