//go:build !amd64

package minilm

// No assembly on this architecture (variables, as on amd64, so that tests
// can switch paths).
var useAVX2, useVNNI = false, false

func dotsI8(x []float32, ldx int, w []int8, ldw int, k int, out *[8]float32) {
	dotsI8Go(x, ldx, w, ldw, k, out)
}

func dotsF32(x []float32, ldx int, w []float32, ldw int, k int, out *[8]float32) {
	dotsF32Go(x, ldx, w, ldw, k, out)
}

// expInPlace sets x[i] = e^x[i] (as expf).
func expInPlace(x []float32) {
	for i, v := range x {
		x[i] = expf(v)
	}
}

func dotsQ(x []uint8, ldx int, w []int8, ldw int, k int, out *[16]int32) {
	dotsQGo(x, ldx, w, ldw, k, out)
}

func dotsQOut(x []uint8, ldx int, w []int8, ldw int, k int, out []float32, ldo int, xs, xl []float32, ws, fsum, bias []float32, groups int) bool {
	return false
}

func minMax(x []float32) (lo, hi float32) { return minMaxGo(x) }

func quantizeRow(x []float32, lo, inv float32, qh, ql []uint8) { quantizeRowGo(x, lo, inv, qh, ql) }

func geluAsm(x []float32) { panic("minilm: no gelu assembly on this architecture") }

func gemm4x16(a []float32, lda int, b []float32, ldb int, k int, c []float32, ldc int) {
	gemm4x16Go(a, lda, b, ldb, k, c, ldc)
}

func softmax(x []float32, scale float32) { softmaxGo(x, scale) }

func qgemm(x []uint8, k int, w []int8, out []float32, ldo int, xs, xl, ws, fsum, bias []float32) {
	panic("minilm: no VNNI on this architecture")
}
