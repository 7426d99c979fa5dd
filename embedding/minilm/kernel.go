package minilm

import "math"

// The inner loops of the forward pass: tiles of dot products of 4 rows of
// activations with 2 rows of weights, contiguous along the reduction. On
// amd64 with AVX2 and FMA they run in assembly (kernel_amd64.s, 8 floats
// per instruction); elsewhere, and in tests as the reference, in Go.
//
// Every k is a positive multiple of 8, every row pointer is valid for k
// elements; out receives the 8 dot products ordered (x0·w0, x0·w1, x1·w0,
// x1·w1, x2·w0, ...).

// dotsI8Go is the portable tile of float32 activations and int8 weights.
func dotsI8Go(x []float32, ldx int, w []int8, ldw int, k int, out *[8]float32) {
	for r := range 4 {
		xr := x[r*ldx : r*ldx+k]
		w0 := w[:k]
		w1 := w[ldw : ldw+k]
		var s0, s1, t0, t1 float32
		for i := 0; i < k; i += 2 {
			s0 += xr[i] * float32(w0[i])
			t0 += xr[i+1] * float32(w0[i+1])
			s1 += xr[i] * float32(w1[i])
			t1 += xr[i+1] * float32(w1[i+1])
		}
		out[2*r], out[2*r+1] = s0+t0, s1+t1
	}
}

// dotsF32Go is the portable tile of float32 activations and weights.
func dotsF32Go(x []float32, ldx int, w []float32, ldw int, k int, out *[8]float32) {
	for r := range 4 {
		xr := x[r*ldx : r*ldx+k]
		w0 := w[:k]
		w1 := w[ldw : ldw+k]
		var s0, s1, t0, t1 float32
		for i := 0; i < k; i += 2 {
			s0 += xr[i] * w0[i]
			t0 += xr[i+1] * w0[i+1]
			s1 += xr[i] * w1[i]
			t1 += xr[i+1] * w1[i+1]
		}
		out[2*r], out[2*r+1] = s0+t0, s1+t1
	}
}

// dotsQGo is the portable tile of quantised activations (uint8, 4 rows)
// and int8 weights (4 rows): out[4*r+c] = x[r]·w[c], exact in int32 (k ≤
// 65536, so no sum can overflow). Every path (VNNI, AVX2, Go) gives the
// same sums. k is a positive multiple of 64.
func dotsQGo(x []uint8, ldx int, w []int8, ldw int, k int, out *[16]int32) {
	for r := range 4 {
		xr := x[r*ldx : r*ldx+k]
		for c := range 4 {
			wc := w[c*ldw : c*ldw+k]
			var s int32
			for i, v := range xr {
				s += int32(v) * int32(wc[i])
			}
			out[4*r+c] = s
		}
	}
}

// minMaxGo returns the least and greatest of x (len(x) > 0).
func minMaxGo(x []float32) (lo, hi float32) {
	lo, hi = x[0], x[0]
	for _, v := range x {
		if v < lo { // not min(): its NaN and ±0 rules make it several times slower
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// quantizeRowGo writes x's high and low bytes (see quantize): f =
// (x-lo)·inv, high = round(f), low = round((f-high)·256 + 128), rounded
// half to even (as the CPU's conversions) and clamped to [0, 255].
func quantizeRowGo(x []float32, lo, inv float32, qh, ql []uint8) {
	qh, ql = qh[:len(x)], ql[:len(x)]
	for i, v := range x {
		f := float32(v-lo) * inv
		h := float32(math.RoundToEven(float64(f)))
		l := float32(math.RoundToEven(float64(float32((f-h)*256) + 128)))
		qh[i] = uint8(max(0, min(h, 255)))
		ql[i] = uint8(max(0, min(l, 255)))
	}
}

// gemm4x16Go is the portable attention tile: c[r][0:16] = Σ_i
// a[r][i]·b[i][0:16] for the 4 rows of a (strides in elements, k > 0).
func gemm4x16Go(a []float32, lda int, b []float32, ldb int, k int, c []float32, ldc int) {
	for r := range 4 {
		var acc [16]float32
		ar := a[r*lda : r*lda+k]
		for i, x := range ar {
			br := (*[16]float32)(b[i*ldb:])
			for j := range acc {
				acc[j] += x * br[j]
			}
		}
		copy(c[r*ldc:r*ldc+16], acc[:])
	}
}

// softmaxGo sets x to softmax((x - max x)·scale), the exponentials as
// expf's.
func softmaxGo(x []float32, scale float32) {
	mx := float32(math.Inf(-1))
	for _, v := range x {
		if v > mx { // not max(): its NaN and ±0 rules cost a third of attention
			mx = v
		}
	}
	var sum float32
	for j, v := range x {
		e := expf((v - mx) * scale)
		x[j] = e
		sum += e
	}
	inv := 1 / sum
	for j := range x {
		x[j] *= inv
	}
}
