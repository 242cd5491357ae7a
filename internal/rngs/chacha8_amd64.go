package rngs

import "golang.org/x/sys/cpu"

// hasPeriodKernel: the CPU runs chacha8Period (AVX-512 F, with the operating system's
// support for its state).
var hasPeriodKernel = cpu.X86.HasAVX512F

// chacha8Period writes the 128 values of one ChaCha8rand period under key to out: ChaCha8
// blocks with counters 0 to 15, four-block buffer b (blocks 4b…4b+3) at out[32b:32b+32] laid
// out word by word (word w of block 4b+i is 32-bit value 4w+i of the buffer), words 4–11 fed
// forward with the key (chacha8_amd64.s).
//
//go:noescape
func chacha8Period(key *[4]uint64, out *[128]uint64)
