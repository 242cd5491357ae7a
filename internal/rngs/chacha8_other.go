//go:build !amd64

package rngs

// hasPeriodKernel: no assembly here; ChaCha8 copies math/rand/v2's stream.
var hasPeriodKernel = false

func chacha8Period(key *[4]uint64, out *[128]uint64) { panic("rngs: chacha8Period without its kernel") }
