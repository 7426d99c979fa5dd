package minilm

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly tiles; every amd64 CPU since 2013 (Haswell,
// Zen) has both features.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

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
