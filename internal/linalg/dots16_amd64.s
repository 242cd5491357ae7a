#include "textflag.h"

// func dots16AVX2(dst *float64, x *float64, bt *float64, k int)
//
// For the float64 vector x (k values) and sixteen float64 rows stored by dimension in bt
// (bt[16t+c] is dimension t of row c), sets dst[c] = Σ_t x[t]·bt[16t+c], summed in order
// t = 0…k−1 from 0 with one rounding per product and per addition (no fused multiply-add):
// the arithmetic of the scalar loop, lane by lane, so bit-identical to it. Four accumulators
// of four rows each keep four chains of additions in flight. Requires AVX2, k ≥ 1.
TEXT ·dots16AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ bt+16(FP), R8
	MOVQ k+24(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop:
	VBROADCASTSD (SI), Y4
	VMULPD       (R8), Y4, Y5
	VADDPD       Y5, Y0, Y0
	VMULPD       32(R8), Y4, Y6
	VADDPD       Y6, Y1, Y1
	VMULPD       64(R8), Y4, Y7
	VADDPD       Y7, Y2, Y2
	VMULPD       96(R8), Y4, Y8
	VADDPD       Y8, Y3, Y3
	ADDQ         $8, SI
	ADDQ         $128, R8
	DECQ         CX
	JNZ          loop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET
