#include "textflag.h"

// func expShiftedAVX2(dst, src *float64, n int, shift, scale float64, k *expKernelConstants) (done int)
//
// Sets dst[i] = exp(scale·(src[i] − shift)) four at a time with the operations of the standard
// library's math.Exp on amd64 (exp_amd64.s, FMA branch: Shibata's method), lane by lane, so the
// results are bit-identical to it. Stops before the first group of four holding an argument
// outside [k.lo, k.hi] (or NaN), which needs math.Exp's special cases, or with fewer than four
// elements left; returns the number of elements written. Requires AVX2 and FMA.
TEXT ·expShiftedAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD shift+24(FP), Y14
	VBROADCASTSD scale+32(FP), Y15
	MOVQ k+40(FP), R8
	XORQ AX, AX

loop:
	CMPQ CX, $4
	JLT  done
	VMOVUPD (SI)(AX*8), Y0
	VSUBPD  Y14, Y0, Y0
	VMULPD  Y15, Y0, Y0 // x = scale·(src − shift)

	// every lane in [lo, hi]?
	VCMPPD    $0x0D, 416(R8), Y0, Y5 // x ≥ lo
	VCMPPD    $0x02, 448(R8), Y0, Y6 // x ≤ hi
	VANDPD    Y5, Y6, Y5
	VMOVMSKPD Y5, DX
	CMPQ      DX, $15
	JNE       done

	// x = e·ln 2 + r: e = round(x·log₂e), r by two fused steps
	VMULPD       0(R8), Y0, Y1
	VCVTPD2DQY   Y1, X2
	VCVTDQ2PD    X2, Y1
	VFNMADD231PD 32(R8), Y1, Y0
	VFNMADD231PD 64(R8), Y1, Y0
	VMULPD       96(R8), Y0, Y0 // r/16

	// Taylor polynomial of (exp(r/16) − 1)/(r/16), then squared four times
	VMOVUPD     128(R8), Y3
	VFMADD213PD 160(R8), Y0, Y3
	VFMADD213PD 192(R8), Y0, Y3
	VFMADD213PD 224(R8), Y0, Y3
	VFMADD213PD 256(R8), Y0, Y3
	VFMADD213PD 288(R8), Y0, Y3
	VFMADD213PD 320(R8), Y0, Y3
	VFMADD213PD 352(R8), Y0, Y3
	VMULPD      Y3, Y0, Y0
	VADDPD      384(R8), Y0, Y3
	VMULPD      Y3, Y0, Y0
	VADDPD      384(R8), Y0, Y3
	VMULPD      Y3, Y0, Y0
	VADDPD      384(R8), Y0, Y3
	VMULPD      Y3, Y0, Y0
	VADDPD      384(R8), Y0, Y3
	VFMADD213PD 352(R8), Y3, Y0

	// times 2^e
	VPMOVSXDQ X2, Y4
	VPADDQ    480(R8), Y4, Y4
	VPSLLQ    $52, Y4, Y4
	VMULPD    Y4, Y0, Y0

	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	SUBQ    $4, CX
	JMP     loop

done:
	VZEROUPPER
	MOVQ AX, done+48(FP)
	RET

// func divideAVX2(x *float64, n int, d float64) (done int)
//
// Sets x[i] /= d four at a time (IEEE division, as the scalar one) while at least four elements
// are left; returns the number of elements divided.
TEXT ·divideAVX2(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSD d+16(FP), Y1
	XORQ         AX, AX

divLoop:
	CMPQ    CX, $4
	JLT     divDone
	VMOVUPD (DI)(AX*8), Y0
	VDIVPD  Y1, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	SUBQ    $4, CX
	JMP     divLoop

divDone:
	VZEROUPPER
	MOVQ AX, done+24(FP)
	RET

// func negMinAVX2(dst, src *float64, n int, clip float64) (done int)
//
// Sets dst[i] = −min(src[i], g), g = clip, four at a time while at least four elements are left; returns
// the number of elements written. VMINPD with g as its first source returns src[i] unless
// g < src[i], so a NaN src[i] comes back as itself, as Go's min returns NaN; the negation flips
// the sign bit, as Go's unary minus. (Go's min(±0, ∓0) is −0, VMINPD's the second source: they
// differ only for g = ±0, which callers exclude.)
TEXT ·negMinAVX2(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD clip+24(FP), Y1
	MOVQ         $0x8000000000000000, AX
	MOVQ         AX, X2
	VPBROADCASTQ X2, Y2 // the sign bit
	XORQ         AX, AX

negMinLoop:
	CMPQ    CX, $4
	JLT     negMinDone
	VMOVUPD (SI)(AX*8), Y0
	VMINPD  Y0, Y1, Y0 // g < src ? g : src
	VXORPD  Y2, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	SUBQ    $4, CX
	JMP     negMinLoop

negMinDone:
	VZEROUPPER
	MOVQ AX, done+32(FP)
	RET
