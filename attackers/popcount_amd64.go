package attackers

import "golang.org/x/sys/cpu"

// usePopcountAVX512 selects the assembly of maskedPopcounts3 (AVX-512 VPOPCNTDQ); tests switch
// it off to check the Go loop.
var usePopcountAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPOPCNTDQ && cpu.X86.HasPOPCNT

// maskedPopcounts3AVX512 is maskedPopcounts3 in AVX-512 (popcount_amd64.s).
//
//go:noescape
func maskedPopcounts3AVX512(once, twice, shared, chosen *uint64, words int) (a, b, c int)

// maskedPopcounts3 returns Σ_i popcount(once[i] & chosen[i]) and the same sums for twice and
// shared (each as long as chosen): the dense levels of a candidate's whole-text sums.
func maskedPopcounts3(once, twice, shared, chosen []uint64) (a, b, c int) {
	if len(chosen) == 0 {
		return 0, 0, 0
	}
	if !usePopcountAVX512 {
		return maskedPopcounts3Go(once, twice, shared, chosen)
	}
	_, _, _ = once[len(chosen)-1], twice[len(chosen)-1], shared[len(chosen)-1] // the bounds the assembly relies on
	return maskedPopcounts3AVX512(&once[0], &twice[0], &shared[0], &chosen[0], len(chosen))
}
