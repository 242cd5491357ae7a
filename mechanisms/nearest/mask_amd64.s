#include "textflag.h"

// func maskAtMostAVX2(lower *float32, npanels int, threshold float32, masks *uint16)
//
// For each panel p < npanels of panelRows = 16 float32 values at lower[16p:], sets bit j of
// masks[p] when lower[16p+j] ≤ threshold (VCMPPS predicate 0x1d, GE_OQ, threshold ≥ lower:
// false for NaN, as Go's <=), clearing the other bits. Requires AVX2.
TEXT ·maskAtMostAVX2(SB), NOSPLIT, $0-32
	MOVQ lower+0(FP), SI
	MOVQ npanels+8(FP), CX
	VBROADCASTSS threshold+16(FP), Y0
	MOVQ masks+24(FP), DI
	TESTQ CX, CX
	JZ maskDone

maskLoop:
	VCMPPS $0x1d, (SI), Y0, Y1
	VCMPPS $0x1d, 32(SI), Y0, Y2
	VMOVMSKPS Y1, AX
	VMOVMSKPS Y2, BX
	SHLL $8, BX
	ORL BX, AX
	MOVW AX, (DI)
	ADDQ $64, SI
	ADDQ $2, DI
	DECQ CX
	JNZ maskLoop

maskDone:
	VZEROUPPER
	RET
