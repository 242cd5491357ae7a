#include "textflag.h"

// func tileScoresAVX2(q, panels, sqNorms *float32, k, npanels int, out *float32, outStride int, mins *float32)
//
// For 6 queries packed as k×6 floats (q[t*6+r]) and npanels vocabulary panels of 16 rows packed
// as k×16 floats each (panel[t*16+j]), writes out[r*outStride + p*16 + j] = sqNorms[p*16+j] −
// 2·(query r · row j of panel p) and lowers mins[r*8 .. r*8+7] (lane-wise) to the minimum of
// the values written for query r. Dot products accumulate with FMA in order t = 0, 1, …, k−1.
// Requires k ≥ 1, AVX2 and FMA.
TEXT ·tileScoresAVX2(SB), NOSPLIT, $0-64
	MOVQ q+0(FP), SI
	MOVQ panels+8(FP), BX
	MOVQ sqNorms+16(FP), DX
	MOVQ k+24(FP), CX
	MOVQ npanels+32(FP), R8
	MOVQ out+40(FP), DI
	MOVQ outStride+48(FP), R9
	MOVQ mins+56(FP), R10
	SHLQ $2, R9

panelLoop:
	TESTQ R8, R8
	JZ    done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	MOVQ   SI, AX
	MOVQ   CX, R11

dimLoop:
	VMOVUPS      (BX), Y12
	VMOVUPS      32(BX), Y13
	VBROADCASTSS (AX), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS 4(AX), Y15
	VFMADD231PS  Y12, Y15, Y2
	VFMADD231PS  Y13, Y15, Y3
	VBROADCASTSS 8(AX), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS 12(AX), Y15
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	VBROADCASTSS 16(AX), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS 20(AX), Y15
	VFMADD231PS  Y12, Y15, Y10
	VFMADD231PS  Y13, Y15, Y11
	ADDQ         $24, AX
	ADDQ         $64, BX
	DECQ         R11
	JNZ          dimLoop

	// f = ‖v‖² − 2·s (doubling is exact; one rounding in the subtraction).
	VMOVUPS (DX), Y12
	VMOVUPS 32(DX), Y13
	VADDPS  Y0, Y0, Y0
	VSUBPS  Y0, Y12, Y0
	VADDPS  Y1, Y1, Y1
	VSUBPS  Y1, Y13, Y1
	VADDPS  Y2, Y2, Y2
	VSUBPS  Y2, Y12, Y2
	VADDPS  Y3, Y3, Y3
	VSUBPS  Y3, Y13, Y3
	VADDPS  Y4, Y4, Y4
	VSUBPS  Y4, Y12, Y4
	VADDPS  Y5, Y5, Y5
	VSUBPS  Y5, Y13, Y5
	VADDPS  Y6, Y6, Y6
	VSUBPS  Y6, Y12, Y6
	VADDPS  Y7, Y7, Y7
	VSUBPS  Y7, Y13, Y7
	VADDPS  Y8, Y8, Y8
	VSUBPS  Y8, Y12, Y8
	VADDPS  Y9, Y9, Y9
	VSUBPS  Y9, Y13, Y9
	VADDPS  Y10, Y10, Y10
	VSUBPS  Y10, Y12, Y10
	VADDPS  Y11, Y11, Y11
	VSUBPS  Y11, Y13, Y11

	MOVQ    DI, AX
	VMOVUPS Y0, (AX)
	VMOVUPS Y1, 32(AX)
	ADDQ    R9, AX
	VMOVUPS Y2, (AX)
	VMOVUPS Y3, 32(AX)
	ADDQ    R9, AX
	VMOVUPS Y4, (AX)
	VMOVUPS Y5, 32(AX)
	ADDQ    R9, AX
	VMOVUPS Y6, (AX)
	VMOVUPS Y7, 32(AX)
	ADDQ    R9, AX
	VMOVUPS Y8, (AX)
	VMOVUPS Y9, 32(AX)
	ADDQ    R9, AX
	VMOVUPS Y10, (AX)
	VMOVUPS Y11, 32(AX)

	VMINPS  Y1, Y0, Y0
	VMINPS  (R10), Y0, Y0
	VMOVUPS Y0, (R10)
	VMINPS  Y3, Y2, Y2
	VMINPS  32(R10), Y2, Y2
	VMOVUPS Y2, 32(R10)
	VMINPS  Y5, Y4, Y4
	VMINPS  64(R10), Y4, Y4
	VMOVUPS Y4, 64(R10)
	VMINPS  Y7, Y6, Y6
	VMINPS  96(R10), Y6, Y6
	VMOVUPS Y6, 96(R10)
	VMINPS  Y9, Y8, Y8
	VMINPS  128(R10), Y8, Y8
	VMOVUPS Y8, 128(R10)
	VMINPS  Y11, Y10, Y10
	VMINPS  160(R10), Y10, Y10
	VMOVUPS Y10, 160(R10)

	ADDQ $64, DI
	ADDQ $64, DX
	DECQ R8
	JMP  panelLoop

done:
	VZEROUPPER
	RET
