package rngs

import (
	"encoding/binary"
	"math/rand/v2"
)

// ChaCha8 is math/rand/v2's ChaCha8 generator, the same stream of Uint64 values for the same
// key, produced a reseeding period at a time. ChaCha8rand (Cox, "The ChaCha8rand
// Pseudorandom Number Generator", C2SP) runs ChaCha8 blocks 0 to 15 under one key, keeps words
// 4–11 of each block fed forward with the key, emits the 128 64-bit values of the four
// four-block buffers less the last four, and takes those four as the next period's key. Where
// the CPU has AVX-512 the sixteen blocks of a period are computed side by side, one block per
// 32-bit lane (chacha8Period); elsewhere the period is copied out of a math/rand/v2 ChaCha8.
// Next is small enough to be inlined, so a hot loop of draws pays no call per value.
type ChaCha8 struct {
	buf [128]uint64
	i   uint32 // the next value's index; periodValues: none left
	key [4]uint64
	std *rand.ChaCha8 // the fallback's generator (nil with the assembly)
}

// periodValues is the number of values of a period that are emitted (the rest is the next key).
const periodValues = 124

// NewChaCha8 returns the generator of key (rand.NewChaCha8's stream).
func NewChaCha8(key [32]byte) *ChaCha8 {
	c := &ChaCha8{i: periodValues}
	if !hasPeriodKernel {
		c.std = rand.NewChaCha8(key)
		return c
	}
	for i := range c.key {
		c.key[i] = binary.LittleEndian.Uint64(key[8*i:]) // as math/rand/v2 reads the key
	}
	return c
}

// Uint64 returns the next value of the stream.
func (c *ChaCha8) Uint64() uint64 {
	x, ok := c.Next()
	if !ok {
		c.Refill()
		x, _ = c.Next()
	}
	return x
}

// Next returns the next value of the stream when the current period has one left, false when
// it has none (call Refill, then Next again). It is small enough to be inlined, so that a hot
// loop of draws pays no call per value (Uint64 is a call).
func (c *ChaCha8) Next() (uint64, bool) {
	i := c.i
	if i >= periodValues {
		return 0, false
	}
	c.i = i + 1
	return c.buf[i&127], true
}

// Refill computes the next period (or copies it from the fallback); call it when Next says
// the period is spent.
func (c *ChaCha8) Refill() {
	if c.std != nil {
		for i := range c.buf[:periodValues] {
			c.buf[i] = c.std.Uint64()
		}
	} else {
		chacha8Period(&c.key, &c.buf)
		copy(c.key[:], c.buf[periodValues:])
	}
	c.i = 0
}

// Unread returns the values of the current period not drawn yet, in stream order (empty when
// the period is spent: call Refill). They stay undrawn until Skip: a loop can take them from a
// local slice and then Skip the number it used, without a store per value.
func (c *ChaCha8) Unread() []uint64 { return c.buf[c.i:periodValues] }

// Skip marks the first k values of Unread as drawn (0 ≤ k ≤ len(Unread())).
func (c *ChaCha8) Skip(k int) {
	if k < 0 || int(c.i)+k > periodValues {
		panic("rngs: Skip beyond the current period")
	}
	c.i += uint32(k)
}
