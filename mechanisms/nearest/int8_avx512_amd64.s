#include "textflag.h"

// func tileScoresInt8AVX512(q *int8, tileBytes int, panels *uint8, info, consts *float32, groups, npanels int, out *float32, outStride int, minU, thr *float32, masks *uint16)
//
// The Int8 kernel for AVX-512 (F, BW, VL and VNNI): the contract of tileScoresInt8Pass for
// int8WideTiles = 3 consecutive query tiles (12 queries, tile i at q + i·tileBytes) in one pass
// over the panels. The lower bounds L it stores are those of tileScoresInt8AVX2 on each tile, bit
// for bit: the integer sums are exact and the float32 epilogue performs the same operations, in
// the same order, with the same fused multiply-adds.
//
// Sums: one 64-byte load covers a group of 4 dimensions of all 16 rows of a panel (row j in
// dword lane j); VPDPBUSD with the query's 4 bytes broadcast from memory ({1to16}) adds the 4
// unsigned-by-signed byte products of each lane to that query's int32 accumulator, exactly
// (|I| < 2²⁴, see quantised.go). Z0–Z11 accumulate the 12 queries, Z12 holds the group; the
// loop takes two groups per step, and an odd last group alone.
// Epilogue per panel: the 6 info fields stay in Z13–Z18 for the 12 queries; per query r
// f = ‖v‖² − 2s_z·(m·B + s·I) and b = α‖v‖ + β‖e‖ + γW (constants broadcast from memory);
// L = f − b goes to out + r·outStride·4, bit j of masks[r·blockPanels + p] (blockPanels = 64
// masks per query) is set when L_j ≤ thr[r], and U = f + b lowers the 16 lanes of minU + 64r.
// GROUP adds one group of 4 dimensions (the panel's 64 bytes at poff(BX); the queries' 4 bytes
// at qoff within each query's slot of the three tiles at AX, AX+R14 and R13) to the 12
// accumulators Z0–Z11.
#define GROUP(qoff, poff) \
	VMOVDQU32 poff(BX), Z12 \
	VPDPBUSD.BCST qoff+0(AX), Z12, Z0 \
	VPDPBUSD.BCST qoff+4(AX), Z12, Z1 \
	VPDPBUSD.BCST qoff+8(AX), Z12, Z2 \
	VPDPBUSD.BCST qoff+12(AX), Z12, Z3 \
	VPDPBUSD.BCST qoff+0(AX)(R14*1), Z12, Z4 \
	VPDPBUSD.BCST qoff+4(AX)(R14*1), Z12, Z5 \
	VPDPBUSD.BCST qoff+8(AX)(R14*1), Z12, Z6 \
	VPDPBUSD.BCST qoff+12(AX)(R14*1), Z12, Z7 \
	VPDPBUSD.BCST qoff+0(R13), Z12, Z8 \
	VPDPBUSD.BCST qoff+4(R13), Z12, Z9 \
	VPDPBUSD.BCST qoff+8(R13), Z12, Z10 \
	VPDPBUSD.BCST qoff+12(R13), Z12, Z11

TEXT ·tileScoresInt8AVX512(SB), NOSPLIT, $0-96
	MOVQ q+0(FP), SI
	MOVQ tileBytes+8(FP), R14
	MOVQ panels+16(FP), BX
	MOVQ info+24(FP), DX
	MOVQ consts+32(FP), R12
	MOVQ groups+40(FP), CX
	MOVQ npanels+48(FP), R8
	MOVQ out+56(FP), DI
	MOVQ outStride+64(FP), R9
	MOVQ minU+72(FP), R10
	SHLQ $2, R9

wPanelLoop:
	TESTQ R8, R8
	JZ    wDone
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	MOVQ SI, AX
	LEAQ (SI)(R14*2), R13 // the third tile
	MOVQ CX, R11

wGroupLoop:
	CMPQ R11, $2
	JLT  wLastGroup
	GROUP(0, 0)
	GROUP(16, 64)
	ADDQ $32, AX
	ADDQ $32, R13
	ADDQ $128, BX
	SUBQ $2, R11
	JMP  wGroupLoop

wLastGroup: // an odd number of groups: the last one alone
	TESTQ R11, R11
	JZ    wEpilogue
	GROUP(0, 0)
	ADDQ $64, BX

wEpilogue:

	// Info fields at DX: ‖v‖² 0, m 64, s 128, ‖v‖ 192, ‖e‖ 256, W 320.
	VMOVUPS 0(DX), Z15
	VMOVUPS 64(DX), Z13
	VMOVUPS 128(DX), Z14
	VMOVUPS 192(DX), Z16
	VMOVUPS 256(DX), Z17
	VMOVUPS 320(DX), Z18
	MOVQ DI, AX
	MOVQ npanels+48(FP), R11
	SUBQ R8, R11
	SHLQ $1, R11
	ADDQ masks+88(FP), R11 // this panel's mask of query 0
	MOVQ thr+80(FP), R13
	// Query 0: constants at 0(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 0(R10).
	VCVTDQ2PS Z0, Z0
	VMULPS.BCST 0(R12), Z13, Z19
	VFMADD231PS Z14, Z0, Z19
	VFNMADD132PS.BCST 32(R12), Z15, Z19
	VMULPS.BCST 64(R12), Z16, Z21
	VFMADD231PS.BCST 96(R12), Z17, Z21
	VFMADD231PS.BCST 128(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 0(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 0(R11)
	VMINPS 0(R10), Z23, Z23
	VMOVUPS Z23, 0(R10)
	ADDQ R9, AX
	// Query 1: constants at 160(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 64(R10).
	VCVTDQ2PS Z1, Z1
	VMULPS.BCST 160(R12), Z13, Z19
	VFMADD231PS Z14, Z1, Z19
	VFNMADD132PS.BCST 192(R12), Z15, Z19
	VMULPS.BCST 224(R12), Z16, Z21
	VFMADD231PS.BCST 256(R12), Z17, Z21
	VFMADD231PS.BCST 288(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 4(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 128(R11)
	VMINPS 64(R10), Z23, Z23
	VMOVUPS Z23, 64(R10)
	ADDQ R9, AX
	// Query 2: constants at 320(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 128(R10).
	VCVTDQ2PS Z2, Z2
	VMULPS.BCST 320(R12), Z13, Z19
	VFMADD231PS Z14, Z2, Z19
	VFNMADD132PS.BCST 352(R12), Z15, Z19
	VMULPS.BCST 384(R12), Z16, Z21
	VFMADD231PS.BCST 416(R12), Z17, Z21
	VFMADD231PS.BCST 448(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 8(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 256(R11)
	VMINPS 128(R10), Z23, Z23
	VMOVUPS Z23, 128(R10)
	ADDQ R9, AX
	// Query 3: constants at 480(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 192(R10).
	VCVTDQ2PS Z3, Z3
	VMULPS.BCST 480(R12), Z13, Z19
	VFMADD231PS Z14, Z3, Z19
	VFNMADD132PS.BCST 512(R12), Z15, Z19
	VMULPS.BCST 544(R12), Z16, Z21
	VFMADD231PS.BCST 576(R12), Z17, Z21
	VFMADD231PS.BCST 608(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 12(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 384(R11)
	VMINPS 192(R10), Z23, Z23
	VMOVUPS Z23, 192(R10)
	ADDQ R9, AX
	// Query 4: constants at 640(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 256(R10).
	VCVTDQ2PS Z4, Z4
	VMULPS.BCST 640(R12), Z13, Z19
	VFMADD231PS Z14, Z4, Z19
	VFNMADD132PS.BCST 672(R12), Z15, Z19
	VMULPS.BCST 704(R12), Z16, Z21
	VFMADD231PS.BCST 736(R12), Z17, Z21
	VFMADD231PS.BCST 768(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 16(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 512(R11)
	VMINPS 256(R10), Z23, Z23
	VMOVUPS Z23, 256(R10)
	ADDQ R9, AX
	// Query 5: constants at 800(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 320(R10).
	VCVTDQ2PS Z5, Z5
	VMULPS.BCST 800(R12), Z13, Z19
	VFMADD231PS Z14, Z5, Z19
	VFNMADD132PS.BCST 832(R12), Z15, Z19
	VMULPS.BCST 864(R12), Z16, Z21
	VFMADD231PS.BCST 896(R12), Z17, Z21
	VFMADD231PS.BCST 928(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 20(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 640(R11)
	VMINPS 320(R10), Z23, Z23
	VMOVUPS Z23, 320(R10)
	ADDQ R9, AX
	// Query 6: constants at 960(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 384(R10).
	VCVTDQ2PS Z6, Z6
	VMULPS.BCST 960(R12), Z13, Z19
	VFMADD231PS Z14, Z6, Z19
	VFNMADD132PS.BCST 992(R12), Z15, Z19
	VMULPS.BCST 1024(R12), Z16, Z21
	VFMADD231PS.BCST 1056(R12), Z17, Z21
	VFMADD231PS.BCST 1088(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 24(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 768(R11)
	VMINPS 384(R10), Z23, Z23
	VMOVUPS Z23, 384(R10)
	ADDQ R9, AX
	// Query 7: constants at 1120(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 448(R10).
	VCVTDQ2PS Z7, Z7
	VMULPS.BCST 1120(R12), Z13, Z19
	VFMADD231PS Z14, Z7, Z19
	VFNMADD132PS.BCST 1152(R12), Z15, Z19
	VMULPS.BCST 1184(R12), Z16, Z21
	VFMADD231PS.BCST 1216(R12), Z17, Z21
	VFMADD231PS.BCST 1248(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 28(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 896(R11)
	VMINPS 448(R10), Z23, Z23
	VMOVUPS Z23, 448(R10)
	ADDQ R9, AX
	// Query 8: constants at 1280(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 512(R10).
	VCVTDQ2PS Z8, Z8
	VMULPS.BCST 1280(R12), Z13, Z19
	VFMADD231PS Z14, Z8, Z19
	VFNMADD132PS.BCST 1312(R12), Z15, Z19
	VMULPS.BCST 1344(R12), Z16, Z21
	VFMADD231PS.BCST 1376(R12), Z17, Z21
	VFMADD231PS.BCST 1408(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 32(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 1024(R11)
	VMINPS 512(R10), Z23, Z23
	VMOVUPS Z23, 512(R10)
	ADDQ R9, AX
	// Query 9: constants at 1440(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 576(R10).
	VCVTDQ2PS Z9, Z9
	VMULPS.BCST 1440(R12), Z13, Z19
	VFMADD231PS Z14, Z9, Z19
	VFNMADD132PS.BCST 1472(R12), Z15, Z19
	VMULPS.BCST 1504(R12), Z16, Z21
	VFMADD231PS.BCST 1536(R12), Z17, Z21
	VFMADD231PS.BCST 1568(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 36(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 1152(R11)
	VMINPS 576(R10), Z23, Z23
	VMOVUPS Z23, 576(R10)
	ADDQ R9, AX
	// Query 10: constants at 1600(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 640(R10).
	VCVTDQ2PS Z10, Z10
	VMULPS.BCST 1600(R12), Z13, Z19
	VFMADD231PS Z14, Z10, Z19
	VFNMADD132PS.BCST 1632(R12), Z15, Z19
	VMULPS.BCST 1664(R12), Z16, Z21
	VFMADD231PS.BCST 1696(R12), Z17, Z21
	VFMADD231PS.BCST 1728(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 40(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 1280(R11)
	VMINPS 640(R10), Z23, Z23
	VMOVUPS Z23, 640(R10)
	ADDQ R9, AX
	// Query 11: constants at 1760(R12) (B, 2s_z, α, β, γ 32 bytes apart), minima of U at 704(R10).
	VCVTDQ2PS Z11, Z11
	VMULPS.BCST 1760(R12), Z13, Z19
	VFMADD231PS Z14, Z11, Z19
	VFNMADD132PS.BCST 1792(R12), Z15, Z19
	VMULPS.BCST 1824(R12), Z16, Z21
	VFMADD231PS.BCST 1856(R12), Z17, Z21
	VFMADD231PS.BCST 1888(R12), Z18, Z21
	VSUBPS Z21, Z19, Z22
	VADDPS Z21, Z19, Z23
	VMOVUPS Z22, (AX)
	VCMPPS.BCST $2, 44(R13), Z22, K1 // L ≤ thr (ordered)
	KMOVW K1, 1408(R11)
	VMINPS 704(R10), Z23, Z23
	VMOVUPS Z23, 704(R10)

	ADDQ $64, DI
	ADDQ $384, DX
	DECQ R8
	JMP  wPanelLoop

wDone:
	VZEROUPPER
	RET
