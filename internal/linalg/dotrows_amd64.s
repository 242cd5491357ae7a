#include "textflag.h"

// func dotRowsAVX2(dst, a, b *float32, n, k int)
//
// Sets dst[j] = a·b_j for the n rows b_j of b (n×k, row-major) with the arithmetic of vek32.Dot
// on AVX2 (github.com/viterin/vek v0.4.3, Dot_AVX2_F32), so the results are bit-identical to
// it: the first k rounded down to a multiple of 32 elements accumulate by fused multiply-add
// into four 8-lane sums (elements 32c+0…7, +8…15, +16…23, +24…31), which are added as
// ((s₁+s₀)+s₂)+s₃ and reduced lane-wise (upper 4 + lower 4, then pairs 64 bits apart, then the
// last two); the remaining elements follow one fused multiply-add each, in order. Two rows go
// through together, sharing the loads of a. Requires AVX2 and FMA.

// REDUCE sums the four 8-lane accumulators s0…s3 into the low lane of x0 (the X view of s0),
// using tmp (an X register) as scratch, in vek's order.
#define REDUCE(s0, s1, s2, s3, x0, tmp) \
	VADDPS       s0, s1, s0 \
	VADDPS       s0, s2, s0 \
	VADDPS       s0, s3, s0 \
	VEXTRACTF128 $1, s0, tmp \
	VADDPS       tmp, x0, x0 \
	VPERMILPD    $1, x0, tmp \
	VADDPS       tmp, x0, x0 \
	VMOVSHDUP    x0, tmp \
	VADDSS       tmp, x0, x0

TEXT ·dotRowsAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ k+32(FP), DX
	MOVQ DX, R8
	ANDQ $-32, R8 // elements in whole 32-element chunks
	MOVQ DX, R9
	SHLQ $2, R9   // row stride in bytes

pair:
	CMPQ   CX, $2
	JLT    single
	LEAQ   (BX)(R9*1), R10 // the second row
	VXORPS X0, X0, X0
	VXORPS X8, X8, X8
	XORQ   AX, AX
	TESTQ  R8, R8
	JZ     pairTail
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

pairChunk:
	VMOVUPS     (SI)(AX*4), Y4
	VMOVUPS     32(SI)(AX*4), Y5
	VMOVUPS     64(SI)(AX*4), Y6
	VMOVUPS     96(SI)(AX*4), Y7
	VFMADD231PS (BX)(AX*4), Y4, Y0
	VFMADD231PS 32(BX)(AX*4), Y5, Y1
	VFMADD231PS 64(BX)(AX*4), Y6, Y2
	VFMADD231PS 96(BX)(AX*4), Y7, Y3
	VFMADD231PS (R10)(AX*4), Y4, Y8
	VFMADD231PS 32(R10)(AX*4), Y5, Y9
	VFMADD231PS 64(R10)(AX*4), Y6, Y10
	VFMADD231PS 96(R10)(AX*4), Y7, Y11
	ADDQ        $32, AX
	CMPQ        AX, R8
	JNE         pairChunk
	REDUCE(Y0, Y1, Y2, Y3, X0, X1)
	REDUCE(Y8, Y9, Y10, Y11, X8, X9)

pairTail:
	CMPQ        AX, DX
	JE          pairStore
	VMOVSS      (SI)(AX*4), X1
	VFMADD231SS (BX)(AX*4), X1, X0
	VFMADD231SS (R10)(AX*4), X1, X8
	INCQ        AX
	JMP         pairTail

pairStore:
	VMOVSS X0, (DI)
	VMOVSS X8, 4(DI)
	ADDQ   $8, DI
	LEAQ   (R10)(R9*1), BX
	SUBQ   $2, CX
	JMP    pair

single:
	TESTQ  CX, CX
	JZ     done
	VXORPS X0, X0, X0
	XORQ   AX, AX
	TESTQ  R8, R8
	JZ     singleTail
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

singleChunk:
	VMOVUPS     (SI)(AX*4), Y4
	VMOVUPS     32(SI)(AX*4), Y5
	VMOVUPS     64(SI)(AX*4), Y6
	VMOVUPS     96(SI)(AX*4), Y7
	VFMADD231PS (BX)(AX*4), Y4, Y0
	VFMADD231PS 32(BX)(AX*4), Y5, Y1
	VFMADD231PS 64(BX)(AX*4), Y6, Y2
	VFMADD231PS 96(BX)(AX*4), Y7, Y3
	ADDQ        $32, AX
	CMPQ        AX, R8
	JNE         singleChunk
	REDUCE(Y0, Y1, Y2, Y3, X0, X1)

singleTail:
	CMPQ        AX, DX
	JE          singleStore
	VMOVSS      (SI)(AX*4), X1
	VFMADD231SS (BX)(AX*4), X1, X0
	INCQ        AX
	JMP         singleTail

singleStore:
	VMOVSS X0, (DI)

done:
	VZEROUPPER
	RET
