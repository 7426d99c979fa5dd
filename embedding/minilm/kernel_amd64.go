package minilm

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly tiles; every amd64 CPU since 2013 (Haswell,
// Zen) has both features.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// useVNNI selects the AVX-512 VNNI tile of the int8 products (VPDPBUSD:
// 64 multiply-adds of bytes per instruction); Ice Lake, Sapphire Rapids
// and Zen 4 onward. Without it, AVX2 multiplies 16-bit pairs (VPMADDWD).
var useVNNI = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VNNI

//go:noescape
func dotsQVNNI(x *uint8, ldx int, w *int8, ldw int, k int, out *[16]int32)

//go:noescape
func dotsQAVX2(x *uint8, ldx int, w *int8, ldw int, k int, out *[8]int32)

// dotsQ is dotsQGo's tile (4 activation rows × 4 weight rows of int8
// products, exact int32 sums) on the fastest path the CPU has.
func dotsQ(x []uint8, ldx int, w []int8, ldw int, k int, out *[16]int32) {
	switch {
	case useVNNI:
		_ = x[3*ldx+k-1]
		_ = w[3*ldw+k-1]
		dotsQVNNI(unsafe.SliceData(x), ldx, unsafe.SliceData(w), ldw, k, out)
	case useAVX2:
		_ = x[3*ldx+k-1]
		_ = w[3*ldw+k-1]
		var o [8]int32
		for c := 0; c < 4; c += 2 {
			dotsQAVX2(unsafe.SliceData(x), ldx, &w[c*ldw], ldw, k, &o)
			for r := range 4 {
				out[4*r+c], out[4*r+c+1] = o[2*r], o[2*r+1]
			}
		}
	default:
		dotsQGo(x, ldx, w, ldw, k, out)
	}
}

//go:noescape
func dotsI8AVX2(x *float32, ldx int, w *int8, ldw int, k int, out *[8]float32)

//go:noescape
func dotsF32AVX2(x *float32, ldx int, w *float32, ldw int, k int, out *[8]float32)

func dotsI8(x []float32, ldx int, w []int8, ldw int, k int, out *[8]float32) {
	if useAVX2 {
		_ = x[3*ldx+k-1] // the assembly reads these; check them here
		_ = w[ldw+k-1]
		dotsI8AVX2(unsafe.SliceData(x), ldx, unsafe.SliceData(w), ldw, k, out)
		return
	}
	dotsI8Go(x, ldx, w, ldw, k, out)
}

func dotsF32(x []float32, ldx int, w []float32, ldw int, k int, out *[8]float32) {
	if useAVX2 {
		_ = x[3*ldx+k-1]
		_ = w[ldw+k-1]
		dotsF32AVX2(unsafe.SliceData(x), ldx, unsafe.SliceData(w), ldw, k, out)
		return
	}
	dotsF32Go(x, ldx, w, ldw, k, out)
}

//go:noescape
func expAVX2(x *float32, n int)

// expInPlace sets x[i] = e^x[i] (as expf).
func expInPlace(x []float32) {
	n := len(x) &^ 7
	if useAVX2 && n > 0 {
		expAVX2(unsafe.SliceData(x), n)
		x = x[n:]
	}
	for i, v := range x {
		x[i] = expf(v)
	}
}
