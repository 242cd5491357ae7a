#include "textflag.h"

// func axpy32AVX2(dst, x *float32, a float32, n int)
//
// dst[i] += a·x[i] for i < n (a multiple of 8), eight at a time: one float32 rounding for the
// product and one for the sum, as the scalar float32 loop. Requires AVX2.
TEXT ·axpy32AVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	VBROADCASTSS a+16(FP), Y0
	MOVQ         n+24(FP), CX
	XORQ         AX, AX

axpyLoop:
	VMULPS  (SI)(AX*4), Y0, Y1
	VADDPS  (DI)(AX*4), Y1, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JLT     axpyLoop
	VZEROUPPER
	RET
