package flat

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly dot product (every amd64 CPU since 2013).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b *float32, n int) float32

// dot is the dot product of two vectors of equal length: eight lanes per
// instruction where the CPU has AVX2, the portable loop for the rest.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 7
	if !useAVX2 || n == 0 {
		return dotGo(a, b)
	}
	s := dotAVX2(unsafe.SliceData(a), unsafe.SliceData(b), n)
	if n < len(a) {
		s += dotGo(a[n:], b[n:])
	}
	return s
}

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

// dotInt8 is the int8 dot product of two rows of equal length: sixteen
// lanes per instruction where the CPU has AVX2, the portable loop for the
// rest.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	n := len(a) &^ 15
	if !useAVX2 || n == 0 {
		return dotInt8Go(a, b)
	}
	s := dotInt8AVX2(unsafe.SliceData(a), unsafe.SliceData(b), n)
	if n < len(a) {
		s += dotInt8Go(a[n:], b[n:])
	}
	return s
}
