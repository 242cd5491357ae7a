#include "textflag.h"

// func mulPanelsAVX512(dst *float32, dstStride int, a *float32, m int, panels *float32, npanels, k int)
//
// For each of the m queries a_i (a[i·k:]) sets dst[i·dstStride + 16p + r] = a_i·b_r for the 16
// rows b_r of each of npanels panels, a panel stored
// dimension-major (element t of row r at panels[16k·p + 16t + r]), one row per lane of a
// 16-lane register, with the arithmetic of vek32.Dot on AVX2 (see dotRowsAVX2) lane by lane:
// the first k rounded down to a multiple of 32 elements fall into 32 classes by their index mod
// 32, each class summed over the chunks by fused multiply-add from +0; the classes 8q+l of
// quarter q give s_q[l], and t[l] = ((s₀[l]+s₁[l])+s₂[l])+s₃[l]; then u_i = t_i + t_{i+4},
// v₀ = u₀ + u₂, v₁ = u₁ + u₃ and w = v₀ + v₁ (vek's lane reduction); the remaining elements
// follow one fused multiply-add each, in order (from +0 when k < 32). Every addition keeps
// vek's operand order. Requires AVX-512 F and k ≥ 1.

// CLASSES adds one chunk of the eight classes of a quarter to Z8–Z15: a's elements at
// ap+0…28, the panel's at pp+0…448.
#define CLASSES(ap, pp) \
	VBROADCASTSS 0(ap), Z24 \
	VFMADD231PS  0(pp), Z24, Z8 \
	VBROADCASTSS 4(ap), Z25 \
	VFMADD231PS  64(pp), Z25, Z9 \
	VBROADCASTSS 8(ap), Z26 \
	VFMADD231PS  128(pp), Z26, Z10 \
	VBROADCASTSS 12(ap), Z27 \
	VFMADD231PS  192(pp), Z27, Z11 \
	VBROADCASTSS 16(ap), Z28 \
	VFMADD231PS  256(pp), Z28, Z12 \
	VBROADCASTSS 20(ap), Z29 \
	VFMADD231PS  320(pp), Z29, Z13 \
	VBROADCASTSS 24(ap), Z30 \
	VFMADD231PS  384(pp), Z30, Z14 \
	VBROADCASTSS 28(ap), Z31 \
	VFMADD231PS  448(pp), Z31, Z15

// CLASSESHI is CLASSES into Z16–Z23 (temporaries Z24–Z31).
#define CLASSESHI(ap, pp) \
	VBROADCASTSS 32(ap), Z24 \
	VFMADD231PS  512(pp), Z24, Z16 \
	VBROADCASTSS 36(ap), Z25 \
	VFMADD231PS  576(pp), Z25, Z17 \
	VBROADCASTSS 40(ap), Z26 \
	VFMADD231PS  640(pp), Z26, Z18 \
	VBROADCASTSS 44(ap), Z27 \
	VFMADD231PS  704(pp), Z27, Z19 \
	VBROADCASTSS 48(ap), Z28 \
	VFMADD231PS  768(pp), Z28, Z20 \
	VBROADCASTSS 52(ap), Z29 \
	VFMADD231PS  832(pp), Z29, Z21 \
	VBROADCASTSS 56(ap), Z30 \
	VFMADD231PS  896(pp), Z30, Z22 \
	VBROADCASTSS 60(ap), Z31 \
	VFMADD231PS  960(pp), Z31, Z23

// ZERO16 clears Z8–Z23.
#define ZERO16 \
	ZERO8 \
	VPXORD Z16, Z16, Z16 \
	VPXORD Z17, Z17, Z17 \
	VPXORD Z18, Z18, Z18 \
	VPXORD Z19, Z19, Z19 \
	VPXORD Z20, Z20, Z20 \
	VPXORD Z21, Z21, Z21 \
	VPXORD Z22, Z22, Z22 \
	VPXORD Z23, Z23, Z23

// ZERO8 clears Z8–Z15.
#define ZERO8 \
	VPXORD Z8, Z8, Z8 \
	VPXORD Z9, Z9, Z9 \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPXORD Z12, Z12, Z12 \
	VPXORD Z13, Z13, Z13 \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15

// ADD8 sets t[l] = s_q[l] + t[l] (Z0–Z7 += Z8–Z15, vek's operand order).
#define ADD8 \
	VADDPS Z0, Z8, Z0 \
	VADDPS Z1, Z9, Z1 \
	VADDPS Z2, Z10, Z2 \
	VADDPS Z3, Z11, Z3 \
	VADDPS Z4, Z12, Z4 \
	VADDPS Z5, Z13, Z5 \
	VADDPS Z6, Z14, Z6 \
	VADDPS Z7, Z15, Z7

TEXT ·mulPanelsAVX512(SB), NOSPLIT, $0-56
	MOVQ dstStride+8(FP), R15
	SHLQ $2, R15  // bytes per row of dst
	MOVQ m+24(FP), R9
	MOVQ k+48(FP), DX
	MOVQ DX, R8
	SHRQ $5, R8   // whole 32-element chunks
	MOVQ dst+0(FP), R10
	MOVQ a+16(FP), SI
	TESTQ R9, R9
	JZ done

query:
	MOVQ R10, DI
	MOVQ panels+32(FP), BX
	MOVQ npanels+40(FP), CX
	TESTQ CX, CX
	JZ nextQuery

panel:
	VPXORD Z0, Z0, Z0
	TESTQ R8, R8
	JZ tail

	// Quarters 0 and 1 together: classes 0…7 into Z8–Z15, 8…15 into Z16–Z23.
	ZERO16
	MOVQ SI, R11
	MOVQ BX, R12
	MOVQ R8, R13

chunks01:
	CLASSES(R11, R12)
	CLASSESHI(R11, R12)
	ADDQ $128, R11
	ADDQ $2048, R12
	DECQ R13
	JNZ  chunks01
	// t = s₁ + s₀
	VADDPS Z8, Z16, Z0
	VADDPS Z9, Z17, Z1
	VADDPS Z10, Z18, Z2
	VADDPS Z11, Z19, Z3
	VADDPS Z12, Z20, Z4
	VADDPS Z13, Z21, Z5
	VADDPS Z14, Z22, Z6
	VADDPS Z15, Z23, Z7

	// Quarters 2 and 3 together: classes 16…23 into Z8–Z15, 24…31 into Z16–Z23.
	ZERO16
	LEAQ 64(SI), R11
	LEAQ 1024(BX), R12
	MOVQ R8, R13

chunks23:
	CLASSES(R11, R12)
	CLASSESHI(R11, R12)
	ADDQ $128, R11
	ADDQ $2048, R12
	DECQ R13
	JNZ  chunks23
	// t = s₂ + t, then t = s₃ + t
	VADDPS Z0, Z8, Z0
	VADDPS Z1, Z9, Z1
	VADDPS Z2, Z10, Z2
	VADDPS Z3, Z11, Z3
	VADDPS Z4, Z12, Z4
	VADDPS Z5, Z13, Z5
	VADDPS Z6, Z14, Z6
	VADDPS Z7, Z15, Z7
	VADDPS Z0, Z16, Z0
	VADDPS Z1, Z17, Z1
	VADDPS Z2, Z18, Z2
	VADDPS Z3, Z19, Z3
	VADDPS Z4, Z20, Z4
	VADDPS Z5, Z21, Z5
	VADDPS Z6, Z22, Z6
	VADDPS Z7, Z23, Z7

	// vek's lane reduction, lane-wise: u_i = t_i + t_{i+4}, v = (u₀+u₂, u₁+u₃), w = v₀ + v₁.
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	VADDPS Z6, Z2, Z2
	VADDPS Z7, Z3, Z3
	VADDPS Z2, Z0, Z0
	VADDPS Z3, Z1, Z1
	VADDPS Z1, Z0, Z0

tail:
	MOVQ R8, AX
	SHLQ $5, AX   // first element of the tail

tailLoop:
	CMPQ AX, DX
	JE   store
	MOVQ AX, R14
	SHLQ $6, R14
	VBROADCASTSS (SI)(AX*4), Z16
	VFMADD231PS  (BX)(R14*1), Z16, Z0
	INCQ AX
	JMP  tailLoop

store:
	VMOVUPS Z0, (DI)
	ADDQ    $64, DI
	MOVQ    DX, R13
	SHLQ    $6, R13
	ADDQ    R13, BX // the next panel
	DECQ    CX
	JNZ     panel

nextQuery:
	ADDQ R15, R10
	LEAQ (SI)(DX*4), SI
	DECQ R9
	JNZ  query

done:
	VZEROUPPER
	RET
