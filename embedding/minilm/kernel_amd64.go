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
func dotsQVNNIOut(x *uint8, ldx int, w *int8, ldw int, k int, out *float32, ldo int, xs, xl, ws, fsum, bias *float32, groups int)

// dotsQOut computes matmul's output for 2 tokens (x: their high and low
// byte rows) and weight rows [j, j+4·groups) (w, ws, fsum, bias and out
// start at row j), scaling included. It reports false when the CPU has no
// fused tile (the caller scales dotsQ's sums itself).
func dotsQOut(x []uint8, ldx int, w []int8, ldw int, k int, out []float32, ldo int, xs, xl []float32, ws, fsum, bias []float32, groups int) bool {
	if !useVNNI || groups <= 0 {
		return false
	}
	n := 4 * groups
	_ = x[3*ldx+k-1]
	_ = w[(n-1)*ldw+k-1]
	_ = out[ldo+n-1]
	_, _, _, _, _ = xs[1], xl[1], ws[n-1], fsum[n-1], bias[n-1]
	dotsQVNNIOut(unsafe.SliceData(x), ldx, unsafe.SliceData(w), ldw, k, unsafe.SliceData(out), ldo,
		unsafe.SliceData(xs), unsafe.SliceData(xl), unsafe.SliceData(ws), unsafe.SliceData(fsum), unsafe.SliceData(bias), groups)
	return true
}

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

//go:noescape
func minMaxAVX2(x *float32, n int) (lo, hi float32)

//go:noescape
func quantRowAVX2(x *float32, n int, lo, inv float32, qh, ql *uint8)

// minMax returns the least and greatest of x (len(x) > 0).
func minMax(x []float32) (lo, hi float32) {
	if useAVX2 && len(x)%8 == 0 {
		return minMaxAVX2(unsafe.SliceData(x), len(x))
	}
	return minMaxGo(x)
}

// quantizeRow is quantizeRowGo, in assembly where the CPU has AVX2.
func quantizeRow(x []float32, lo, inv float32, qh, ql []uint8) {
	if useAVX2 && len(x)%8 == 0 {
		_, _ = qh[len(x)-1], ql[len(x)-1]
		quantRowAVX2(unsafe.SliceData(x), len(x), lo, inv, unsafe.SliceData(qh), unsafe.SliceData(ql))
		return
	}
	quantizeRowGo(x, lo, inv, qh, ql)
}

//go:noescape
func geluAVX2(x *float32, n int)

// geluAsm is gelu's loop for len(x) a multiple of 8, in assembly.
func geluAsm(x []float32) { geluAVX2(unsafe.SliceData(x), len(x)) }

//go:noescape
func gemm4x16AVX2(a *float32, lda int, b *float32, ldb int, k int, c *float32, ldc int)

// gemm4x16 is gemm4x16Go's tile, in assembly where the CPU has AVX2.
func gemm4x16(a []float32, lda int, b []float32, ldb int, k int, c []float32, ldc int) {
	if useAVX2 {
		_ = a[3*lda+k-1] // the assembly reads and writes these; check them here
		_ = b[(k-1)*ldb+15]
		_ = c[3*ldc+15]
		gemm4x16AVX2(unsafe.SliceData(a), lda, unsafe.SliceData(b), ldb, k, unsafe.SliceData(c), ldc)
		return
	}
	gemm4x16Go(a, lda, b, ldb, k, c, ldc)
}

//go:noescape
func softmaxAVX2(x *float32, n int, scale float32)

// softmax is softmaxGo, in assembly where the CPU has AVX2 and len(x) is a
// multiple of 8.
func softmax(x []float32, scale float32) {
	if useAVX2 && len(x)%8 == 0 && len(x) > 0 {
		softmaxAVX2(unsafe.SliceData(x), len(x), scale)
		return
	}
	softmaxGo(x, scale)
}

//go:noescape
func qgemmVNNI(x *uint8, k int, w *int8, out *float32, ldo int, xs, xl, ws, fsum, bias *float32)

// qgemm computes matmul's output for 4 tokens (x: their 8 byte rows, k
// bytes each) and 32 weight rows packed by packQGEMM (w), scaling
// included; out, xs and xl start at the first token, ws, fsum and bias at
// the first weight row. CPUs with VNNI only.
func qgemm(x []uint8, k int, w []int8, out []float32, ldo int, xs, xl, ws, fsum, bias []float32) {
	_ = x[8*k-1]
	_ = w[32*k-1]
	_ = out[3*ldo+31]
	_, _, _, _, _ = xs[3], xl[3], ws[31], fsum[31], bias[31]
	qgemmVNNI(unsafe.SliceData(x), k, unsafe.SliceData(w), unsafe.SliceData(out), ldo,
		unsafe.SliceData(xs), unsafe.SliceData(xl), unsafe.SliceData(ws), unsafe.SliceData(fsum), unsafe.SliceData(bias))
}
