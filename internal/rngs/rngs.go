// Package rngs derives independent, reproducible random streams for units of work.
//
// Every unit of work in a run (one mechanism applied to one document at one ε in one repeat,
// one attacker fitted in one cell, …) gets its own generator, seeded from the run seed and a
// path naming the unit, such as "mech=emd/eps=10/rep=3/doc=17". Results are therefore identical
// at any parallelism, and adding a unit never changes the stream of another. There is no global
// random source anywhere in dptext.
package rngs

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// New returns a ChaCha8 generator whose key is SHA-256(seed ‖ path): rand.NewChaCha8's stream,
// produced by this package's ChaCha8 (a period at a time in AVX-512 where the CPU has it).
func New(seed uint64, path string) *rand.Rand {
	return rand.New(NewChaCha8(Key(seed, path)))
}

// Key is the 32-byte ChaCha8 key of the unit named path in a run with the given seed.
func Key(seed uint64, path string) [32]byte {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(path))
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return key
}

// Child returns a generator for a sub-unit of the unit whose stream is parent: the child's key
// is derived from one 64-bit draw of parent and the sub-unit's name. Use it when a component
// needs several independent streams (for example one per test document) from the generator it
// was handed.
func Child(parent *rand.Rand, name string) *rand.Rand {
	return New(parent.Uint64(), name)
}
