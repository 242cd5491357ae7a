#include "textflag.h"

// func sqDist4x4AVX2(dst *float64, q *float64, y0, y1, y2, y3 *float32, k int)
//
// For the four float32 rows y_r (k values each) and four float64 queries interleaved by
// dimension in q (q[4t+c] is dimension t of query c), sets dst[4r+c] = Σ_t (q[4t+c] − y_r[t])²,
// summed in order t = 0…k−1 from 0 with one rounding per subtraction, product and addition:
// the arithmetic of the scalar float64 loop, lane by lane, so bit-identical to it. The
// four rows keep four independent chains of additions in flight. Requires AVX2, k ≥ 1.
TEXT ·sqDist4x4AVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ y0+16(FP), R8
	MOVQ y1+24(FP), R9
	MOVQ y2+32(FP), R10
	MOVQ y3+40(FP), R11
	MOVQ k+48(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   AX, AX

loop:
	VMOVUPD      (SI), Y4
	VBROADCASTSS (R8)(AX*4), X5
	VCVTPS2PD    X5, Y5
	VSUBPD       Y5, Y4, Y5
	VMULPD       Y5, Y5, Y5
	VADDPD       Y5, Y0, Y0
	VBROADCASTSS (R9)(AX*4), X6
	VCVTPS2PD    X6, Y6
	VSUBPD       Y6, Y4, Y6
	VMULPD       Y6, Y6, Y6
	VADDPD       Y6, Y1, Y1
	VBROADCASTSS (R10)(AX*4), X7
	VCVTPS2PD    X7, Y7
	VSUBPD       Y7, Y4, Y7
	VMULPD       Y7, Y7, Y7
	VADDPD       Y7, Y2, Y2
	VBROADCASTSS (R11)(AX*4), X8
	VCVTPS2PD    X8, Y8
	VSUBPD       Y8, Y4, Y8
	VMULPD       Y8, Y8, Y8
	VADDPD       Y8, Y3, Y3
	ADDQ         $32, SI
	INCQ         AX
	CMPQ         AX, CX
	JLT          loop

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET
