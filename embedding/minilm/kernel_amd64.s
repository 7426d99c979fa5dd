#include "textflag.h"

// Tiles of 4 activation rows × 2 weight rows: 8 accumulators of 8 floats,
// 8 fused multiply-adds per 8 elements of k, then one horizontal
// reduction of all 8 sums. k is a positive multiple of 8; ldx and ldw are
// in elements.

// func dotsI8AVX2(x *float32, ldx int, w *int8, ldw int, k int, out *[8]float32)
TEXT ·dotsI8AVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), AX
	SHLQ $2, AX
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), BX
	MOVQ k+32(FP), CX
	MOVQ out+40(FP), DX
	LEAQ (SI)(AX*2), R8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

i8loop:
	VPMOVSXBD (DI), Y8
	VPMOVSXBD (DI)(BX*1), Y9
	VCVTDQ2PS Y8, Y8
	VCVTDQ2PS Y9, Y9
	VMOVUPS (SI), Y10
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y10, Y9, Y1
	VMOVUPS (SI)(AX*1), Y11
	VFMADD231PS Y11, Y8, Y2
	VFMADD231PS Y11, Y9, Y3
	VMOVUPS (R8), Y12
	VFMADD231PS Y12, Y8, Y4
	VFMADD231PS Y12, Y9, Y5
	VMOVUPS (R8)(AX*1), Y13
	VFMADD231PS Y13, Y8, Y6
	VFMADD231PS Y13, Y9, Y7
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $8, DI
	SUBQ $8, CX
	JNZ  i8loop
	JMP  reduce<>(SB)

// func dotsF32AVX2(x *float32, ldx int, w *float32, ldw int, k int, out *[8]float32)
TEXT ·dotsF32AVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), AX
	SHLQ $2, AX
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), BX
	SHLQ $2, BX
	MOVQ k+32(FP), CX
	MOVQ out+40(FP), DX
	LEAQ (SI)(AX*2), R8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

f32loop:
	VMOVUPS (DI), Y8
	VMOVUPS (DI)(BX*1), Y9
	VMOVUPS (SI), Y10
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y10, Y9, Y1
	VMOVUPS (SI)(AX*1), Y11
	VFMADD231PS Y11, Y8, Y2
	VFMADD231PS Y11, Y9, Y3
	VMOVUPS (R8), Y12
	VFMADD231PS Y12, Y8, Y4
	VFMADD231PS Y12, Y9, Y5
	VMOVUPS (R8)(AX*1), Y13
	VFMADD231PS Y13, Y8, Y6
	VFMADD231PS Y13, Y9, Y7
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  f32loop
	JMP  reduce<>(SB)

// reduce writes the sums of Y0..Y7 to (DX) in that order.
TEXT reduce<>(SB), NOSPLIT|NOFRAME, $0
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y5, Y4, Y4
	VHADDPS Y7, Y6, Y6
	VHADDPS Y2, Y0, Y0
	VHADDPS Y6, Y4, Y4
	VPERM2F128 $0x20, Y4, Y0, Y1
	VPERM2F128 $0x31, Y4, Y0, Y2
	VADDPS Y2, Y1, Y1
	VMOVUPS Y1, (DX)
	VZEROUPPER
	RET

// Constants of expAVX2, one float32 each.
DATA expc<>+0(SB)/4, $0x3fb8aa3b  // log2(e)
DATA expc<>+4(SB)/4, $0x3f317200  // ln2, high part
DATA expc<>+8(SB)/4, $0x35bfbe8e  // ln2, low part
DATA expc<>+12(SB)/4, $0x39500d01 // 1/7!
DATA expc<>+16(SB)/4, $0x3ab60b61 // 1/6!
DATA expc<>+20(SB)/4, $0x3c088889 // 1/5!
DATA expc<>+24(SB)/4, $0x3d2aaaab // 1/4!
DATA expc<>+28(SB)/4, $0x3e2aaaab // 1/3!
DATA expc<>+32(SB)/4, $0x3f000000 // 1/2
DATA expc<>+36(SB)/4, $0x3f800000 // 1
DATA expc<>+40(SB)/4, $0xc2ae0000 // -87
DATA expc<>+44(SB)/4, $0x42b00000 // 88
DATA expc<>+48(SB)/4, $127
GLOBL expc<>(SB), RODATA|NOPTR, $52

// func expAVX2(x *float32, n int)
// x[i] = e^x[i] for n (a positive multiple of 8) floats, as expf: inputs
// clamped to [-87, 88], x = k·ln2 + r, e^r by Taylor to degree 7, 2^k in
// the exponent bits.
TEXT ·expAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	LEAQ expc<>(SB), DX
	VBROADCASTSS 0(DX), Y8   // log2e
	VBROADCASTSS 4(DX), Y9   // ln2 hi
	VBROADCASTSS 8(DX), Y10  // ln2 lo
	VBROADCASTSS 36(DX), Y11 // 1
	VBROADCASTSS 40(DX), Y12 // -87
	VBROADCASTSS 44(DX), Y13 // 88
	VPBROADCASTD 48(DX), Y14 // 127

exploop:
	VMOVUPS (SI), Y0
	VMAXPS Y12, Y0, Y0
	VMINPS Y13, Y0, Y0
	VMULPS Y8, Y0, Y1
	VROUNDPS $0, Y1, Y1          // k, nearest
	VFNMADD231PS Y9, Y1, Y0      // r = x - k·ln2hi
	VFNMADD231PS Y10, Y1, Y0     // r -= k·ln2lo
	VBROADCASTSS 12(DX), Y2      // p = 1/7!
	VBROADCASTSS 16(DX), Y3
	VFMADD213PS Y3, Y0, Y2       // p = p·r + 1/6!
	VBROADCASTSS 20(DX), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS 24(DX), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS 28(DX), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS 32(DX), Y3
	VFMADD213PS Y3, Y0, Y2
	VFMADD213PS Y11, Y0, Y2      // p·r + 1
	VFMADD213PS Y11, Y0, Y2      // p·r + 1
	VCVTPS2DQ Y1, Y1
	VPADDD Y14, Y1, Y1
	VPSLLD $23, Y1, Y1
	VMULPS Y1, Y2, Y2
	VMOVUPS Y2, (SI)
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ  exploop
	VZEROUPPER
	RET
