#include "textflag.h"

// func maskedPopcounts3AVX512(once, twice, shared, chosen *uint64, words int) (a, b, c int)
//
// Returns Σ popcount(once[i] & chosen[i]), and the same for twice and shared, over i < words,
// eight words at a time (VPOPCNTQ) and the rest one at a time (POPCNTQ). Requires AVX-512 F and
// VPOPCNTDQ.
TEXT ·maskedPopcounts3AVX512(SB), NOSPLIT, $0-64
	MOVQ once+0(FP), SI
	MOVQ twice+8(FP), DI
	MOVQ shared+16(FP), R8
	MOVQ chosen+24(FP), R9
	MOVQ words+32(FP), CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	XORQ AX, AX

vectors:
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JGT  reduce
	VMOVDQU64 (R9)(AX*8), Z3
	VPANDQ    (SI)(AX*8), Z3, Z4
	VPANDQ    (DI)(AX*8), Z3, Z5
	VPANDQ    (R8)(AX*8), Z3, Z6
	VPOPCNTQ  Z4, Z4
	VPOPCNTQ  Z5, Z5
	VPOPCNTQ  Z6, Z6
	VPADDQ    Z4, Z0, Z0
	VPADDQ    Z5, Z1, Z1
	VPADDQ    Z6, Z2, Z2
	MOVQ      DX, AX
	JMP       vectors

reduce:
	// horizontal sums of the three accumulators into R10, R11, R12
	VEXTRACTI64X4 $1, Z0, Y3
	VPADDQ        Y3, Y0, Y0
	VEXTRACTI128  $1, Y0, X3
	VPADDQ        X3, X0, X0
	VPSHUFD       $0x4e, X0, X3
	VPADDQ        X3, X0, X0
	VMOVQ         X0, R10
	VEXTRACTI64X4 $1, Z1, Y3
	VPADDQ        Y3, Y1, Y1
	VEXTRACTI128  $1, Y1, X3
	VPADDQ        X3, X1, X1
	VPSHUFD       $0x4e, X1, X3
	VPADDQ        X3, X1, X1
	VMOVQ         X1, R11
	VEXTRACTI64X4 $1, Z2, Y3
	VPADDQ        Y3, Y2, Y2
	VEXTRACTI128  $1, Y2, X3
	VPADDQ        X3, X2, X2
	VPSHUFD       $0x4e, X2, X3
	VPADDQ        X3, X2, X2
	VMOVQ         X2, R12

tail:
	CMPQ    AX, CX
	JGE     done
	MOVQ    (R9)(AX*8), DX
	MOVQ    (SI)(AX*8), BX
	ANDQ    DX, BX
	POPCNTQ BX, BX
	ADDQ    BX, R10
	MOVQ    (DI)(AX*8), BX
	ANDQ    DX, BX
	POPCNTQ BX, BX
	ADDQ    BX, R11
	MOVQ    (R8)(AX*8), BX
	ANDQ    DX, BX
	POPCNTQ BX, BX
	ADDQ    BX, R12
	INCQ    AX
	JMP     tail

done:
	MOVQ R10, a+40(FP)
	MOVQ R11, b+48(FP)
	MOVQ R12, c+56(FP)
	VZEROUPPER
	RET
