#include "textflag.h"

// func symMatVecAVX2(dst, m, v *float64, n, rows int)
//
// For the first rows (a multiple of 16) entries i of dst sets dst[i] = Σ_j m[j·n + i]·v[j],
// summed from +0 in order of j with the product and the sum each rounded (VMULPD, then VADDPD:
// the plain loop's arithmetic). Sixteen entries per pass, four independent 4-lane sums, read
// down the columns of m (its rows when m is symmetric). Requires AVX2.
TEXT ·symMatVecAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ m+8(FP), SI
	MOVQ v+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ rows+32(FP), R8
	MOVQ CX, R9
	SHLQ $3, R9 // bytes per row of m
	XORQ R10, R10 // first entry of the pass

pass:
	CMPQ   R10, R8
	JGE    done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	LEAQ   (SI)(R10*8), BX // m[0·n + i]
	XORQ   AX, AX

column:
	VBROADCASTSD (DX)(AX*8), Y4
	VMULPD       (BX), Y4, Y5
	VMULPD       32(BX), Y4, Y6
	VMULPD       64(BX), Y4, Y7
	VMULPD       96(BX), Y4, Y8
	VADDPD       Y5, Y0, Y0
	VADDPD       Y6, Y1, Y1
	VADDPD       Y7, Y2, Y2
	VADDPD       Y8, Y3, Y3
	ADDQ         R9, BX
	INCQ         AX
	CMPQ         AX, CX
	JLT          column

	VMOVUPD Y0, (DI)(R10*8)
	VMOVUPD Y1, 32(DI)(R10*8)
	VMOVUPD Y2, 64(DI)(R10*8)
	VMOVUPD Y3, 96(DI)(R10*8)
	ADDQ    $16, R10
	JMP     pass

done:
	VZEROUPPER
	RET
