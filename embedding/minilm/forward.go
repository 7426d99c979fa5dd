package minilm

import (
	"math"
	"sync"
)

// state holds one sequence's activations; rows are padded to a multiple of
// 4 (the kernels' tile) and attention columns to a multiple of 16.
type state struct {
	n, rows, cols int       // tokens, padded rows, padded attention columns
	h             []float32 // rows × hidden
	qkv           []float32 // rows × 3·hidden
	ctx           []float32 // rows × hidden
	tmp           []float32 // rows × hidden
	inter         []float32 // rows × intermediate
	heads         []headScratch
	q             quantized // the input of the product being computed
}

// quantized is rows of activations as uint8 with, per row, a scale and an
// offset: x[t][i] ≈ lo[t] + scale[t]·q[t][i] (asymmetric, per token).
type quantized struct {
	q         []uint8
	scale, lo []float32
}

// headScratch is one worker's attention buffers.
type headScratch struct {
	p  []float32 // 4 × cols: 4 rows of attention scores, then probabilities
	kt []float32 // headDim × cols: the head's keys, transposed
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (s *state) reset(m *model, n, workers int) {
	h := m.hdr
	s.n, s.rows, s.cols = n, (n+3)&^3, (n+15)&^15
	s.h = grow(s.h, s.rows*h.Hidden)
	s.qkv = grow(s.qkv, s.rows*3*h.Hidden)
	s.ctx = grow(s.ctx, s.rows*h.Hidden)
	s.tmp = grow(s.tmp, s.rows*h.Hidden)
	s.inter = grow(s.inter, s.rows*h.Intermediate)
	if cap(s.q.q) < 2*s.rows*h.Intermediate {
		s.q.q = make([]uint8, 2*s.rows*h.Intermediate)
	}
	if cap(s.q.scale) < s.rows {
		s.q.scale, s.q.lo = make([]float32, s.rows), make([]float32, s.rows)
	}
	for len(s.heads) < workers {
		s.heads = append(s.heads, headScratch{})
	}
	dh := h.Hidden / h.Heads
	for i := range workers {
		s.heads[i].p = grow(s.heads[i].p, 4*s.cols)
		s.heads[i].kt = grow(s.heads[i].kt, dh*s.cols)
	}
}

// forward runs the encoder over ids ([CLS] … [SEP], at most MaxTokens) and
// writes the mean of the last hidden states, L2-normalised, into out.
// workers > 1 splits each step's work across that many goroutines (for
// one short text, a query); batches run one sequence per goroutine instead.
// It gives up between layers once done is closed (a long note takes a
// while, more under the race detector) and then returns false.
func (m *model) forward(s *state, ids []int32, workers int, out []float32, done <-chan struct{}) bool {
	h := m.hdr
	H, dh := h.Hidden, h.Hidden/h.Heads
	s.reset(m, len(ids), workers)
	for t, id := range ids {
		row := s.h[t*H : (t+1)*H]
		w := m.words.data[int(id)*H : (int(id)+1)*H]
		sc := m.words.scale[id]
		pos := m.position[t*H : (t+1)*H]
		for i := range row {
			row[i] = float32(w[i])*sc + pos[i] + m.tokType[i]
		}
	}
	eps := float32(h.Eps)
	layerNorm(s.h, s.rows, H, m.embLN, eps)
	scale := float32(1 / math.Sqrt(float64(dh)))
	for li := range m.layers {
		select {
		case <-done:
			return false
		default:
		}
		l := &m.layers[li]
		s.matmul(s.qkv, 3*H, s.h, H, l.qkv, workers)
		parallel(h.Heads, workers, func(worker, lo, hi int) {
			for hd := lo; hd < hi; hd++ {
				s.attention(hd, H, dh, scale, &s.heads[worker])
			}
		})
		s.matmul(s.tmp, H, s.ctx, H, l.attOut, workers)
		addNorm(s.h, s.tmp, s.rows, H, l.attLN, eps)
		s.matmul(s.inter, h.Intermediate, s.h, H, l.inter, workers)
		gelu(s.inter[:s.n*h.Intermediate], s.tmp)
		s.matmul(s.tmp, H, s.inter, h.Intermediate, l.out, workers)
		addNorm(s.h, s.tmp, s.rows, H, l.outLN, eps)
	}
	clear(out)
	for t := range s.n {
		row := s.h[t*H : (t+1)*H]
		for i, x := range row {
			out[i] += x
		}
	}
	var sum float64
	for _, x := range out {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		clear(out)
		return true
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range out {
		out[i] *= inv
	}
	return true
}

// attention computes head hd's context for every token into s.ctx, 4
// query rows at a time: their scores against the real keys (q·kᵀ, the
// keys transposed once per head), the softmax of each row, then the rows'
// context (p·v, the values read where they lie in qkv). The 4 rows of
// probabilities stay in L1; no tile needs a horizontal sum (gemm4x16).
func (s *state) attention(hd, H, dh int, scale float32, hs *headScratch) {
	if referenceAttention {
		s.attentionTiles(hd, H, dh, scale)
		return
	}
	ld := 3 * H
	qOff, kOff, vOff := hd*dh, H+hd*dh, 2*H+hd*dh
	n, cols := s.n, s.cols
	n8 := (n + 7) &^ 7
	p, kt := hs.p, hs.kt
	// Keys transposed: kt[d][j]; columns past n stay 0 (reset cleared them).
	for j := range n {
		for d, x := range s.qkv[j*ld+kOff : j*ld+kOff+dh] {
			kt[d*cols+j] = x
		}
	}
	for t0 := 0; t0 < s.rows; t0 += 4 {
		for j0 := 0; j0 < n8; j0 += 16 {
			gemm4x16(s.qkv[t0*ld+qOff:], ld, kt[j0:], cols, dh, p[j0:], cols)
		}
		for r := range 4 {
			row := p[r*cols : r*cols+n8]
			if t0+r >= n { // a padding row: no context
				clear(row[:n])
				continue
			}
			for j := n; j < n8; j++ {
				row[j] = -1e30 // past the real keys: e^-87 at most
			}
			softmax(row, scale)
		}
		for d0 := 0; d0 < dh; d0 += 16 {
			gemm4x16(p, cols, s.qkv[vOff+d0:], ld, n, s.ctx[t0*H+hd*dh+d0:], H)
		}
	}
}

// referenceAttention makes attention use attentionTiles, the code before
// gemm4x16 (tiles of dot products along the head's dimension); tests
// compare the two.
var referenceAttention = false

// attentionTiles is attention as it was before gemm4x16: every score with
// dotsF32 tiles, the softmax in Go, the values transposed. Its buffers are
// allocated per call (tests only).
func (s *state) attentionTiles(hd, H, dh int, scale float32) {
	ld := 3 * H
	qOff, kOff, vOff := hd*dh, H+hd*dh, 2*H+hd*dh
	p, vt := make([]float32, s.rows*s.cols), make([]float32, dh*s.cols)
	var o [8]float32
	// Scores: q·k for every pair of tokens (keys past n are padding).
	for t0 := 0; t0 < s.rows; t0 += 4 {
		for j0 := 0; j0 < s.n; j0 += 2 {
			dotsF32(s.qkv[t0*ld+qOff:], ld, s.qkv[j0*ld+kOff:], ld, dh, &o)
			for r := range 4 {
				p[(t0+r)*s.cols+j0] = o[2*r]
				if j0+1 < s.n {
					p[(t0+r)*s.cols+j0+1] = o[2*r+1]
				}
			}
		}
	}
	// Softmax over the real keys; padded rows and columns stay 0.
	for t := range s.rows {
		row := p[t*s.cols : (t+1)*s.cols]
		if t >= s.n {
			clear(row)
			continue
		}
		mx := float32(math.Inf(-1))
		for _, x := range row[:s.n] {
			if x > mx { // not max(): its NaN and ±0 rules cost a third of attention
				mx = x
			}
		}
		for j, x := range row[:s.n] {
			row[j] = (x - mx) * scale
		}
		expInPlace(row[:s.n])
		var sum float32
		for _, e := range row[:s.n] {
			sum += e
		}
		inv := 1 / sum
		for j := range row[:s.n] {
			row[j] *= inv
		}
		clear(row[s.n:])
	}
	// Values transposed, so that each output is a dot product along keys.
	for j := range s.n {
		v := s.qkv[j*ld+vOff : j*ld+vOff+dh]
		for d, x := range v {
			vt[d*s.cols+j] = x
		}
	}
	for t0 := 0; t0 < s.rows; t0 += 4 {
		for d0 := 0; d0 < dh; d0 += 2 {
			dotsF32(p[t0*s.cols:], s.cols, vt[d0*s.cols:], s.cols, s.cols, &o)
			for r := range 4 {
				c := s.ctx[(t0+r)*H+hd*dh+d0:]
				c[0], c[1] = o[2*r], o[2*r+1]
			}
		}
	}
}

// matmul computes out[t][j] = x[t]·W[j]·scale[j] + bias[j] for the
// state's rows of x: x is quantised per row to uint8 (quantize), the
// products run in int8 with exact int32 sums, and each sum is scaled back:
//
//	x[t]·W[j] ≈ wscale[j]·(xscale[t]·(q[t]·W[j]) + lo[t]·ΣW[j])
//
// With VNNI, on the weights packed at decode (qgemm: 4 tokens × 32 weight
// rows a tile, no horizontal sums); otherwise in tiles of dot products
// (dotsQ: AVX2 or Go). Every path gives the same sums; the VNNI paths the
// same outputs. ReferenceProducts selects matmulF32 instead (float32
// activations).
func (s *state) matmul(out []float32, ldo int, x []float32, ldx int, l linear, workers int) {
	if referenceProducts {
		matmulF32(out, ldo, x, ldx, s.rows, l, workers)
		return
	}
	n, k := l.w.rows, l.w.cols
	q := &s.q
	quantize(x, ldx, s.rows, k, q)
	if useVNNI && l.w.packed != nil {
		// Blocks of 32 weight rows (12-48 KB: they stay in cache while
		// every token passes), 4 tokens at a time.
		parallel(n/32, workers, func(_, lo, hi int) {
			for b := lo; b < hi; b++ {
				j := 32 * b
				w := l.w.packed[j*k : (j+32)*k]
				for t0 := 0; t0 < s.rows; t0 += 4 {
					qgemm(q.q[2*t0*k:], k, w, out[t0*ldo+j:], ldo, q.scale[t0:], q.lo[t0:], l.w.scale[j:], l.w.fsum[j:], l.bias[j:])
				}
			}
		})
		return
	}
	const block = 64 // weight rows per pass over the activations (≤ 96 KB)
	parallel(n/4, workers, func(_, lo, hi int) {
		var o [16]int32
		for jb := 4 * lo; jb < 4*hi; jb += block {
			je := min(jb+block, 4*hi)
			// A tile's 4 activation rows are 2 tokens' high and low bytes.
			for t0 := 0; t0 < s.rows; t0 += 2 {
				xt := q.q[2*t0*k:]
				xs := (*[2]float32)(q.scale[t0:])
				xl := (*[2]float32)(q.lo[t0:])
				if dotsQOut(xt, k, l.w.data[jb*k:], k, k, out[t0*ldo+jb:], ldo, q.scale[t0:], q.lo[t0:], l.w.scale[jb:], l.w.fsum[jb:], l.bias[jb:], (je-jb)/4) {
					continue
				}
				for j := jb; j < je; j += 4 {
					dotsQ(xt, k, l.w.data[j*k:], k, k, &o)
					ws := (*[4]float32)(l.w.scale[j:])
					sum := (*[4]float32)(l.w.fsum[j:])
					b := (*[4]float32)(l.bias[j:])
					for r := range 2 {
						row := (*[4]float32)(out[(t0+r)*ldo+j:])
						hi, lo := (*[4]int32)(o[8*r:]), (*[4]int32)(o[8*r+4:])
						for c := range 4 {
							d := float32(hi[c]) + float32(lo[c])*(1.0/256)
							row[c] = ws[c]*(xs[r]*d+xl[r]*sum[c]) + b[c]
						}
					}
				}
			}
		}
	})
}

// referenceProducts makes matmul use float32 activations (matmulF32), the
// forward pass before int8 products; tests compare the two.
var referenceProducts = false

// minCosineToReference is the least cosine between a vector of the int8
// products and the float32 products' over the parity texts.
const minCosineToReference = 0.999

// quantize writes rows rows of x (k wide, stride ldx) into q, each row as
// two rows of bytes on the row's range [min, max]: the high byte in 255
// steps, the low byte the remainder in 256 steps of the high one's, so
// that x ≈ lo' + scale·(high + low/256) with lo' = min - scale/2. One byte
// alone loses too much (cosine 0.996 to the float32 products on the
// parity texts; two: see minCosineToReference).
func quantize(x []float32, ldx, rows, k int, q *quantized) {
	for t := range rows {
		row := x[t*ldx : t*ldx+k]
		lo, hi := minMax(row)
		qh := q.q[2*t*k : (2*t+1)*k]
		ql := q.q[(2*t+1)*k : (2*t+2)*k]
		if !(hi > lo) { // constant row (or NaN): lo alone is exact
			q.scale[t], q.lo[t] = 0, lo
			clear(qh)
			clear(ql)
			continue
		}
		s := (hi - lo) / 255
		q.scale[t], q.lo[t] = s, lo-s/2
		quantizeRow(row, lo, 255/(hi-lo), qh, ql)
	}
}

// matmulF32 computes out[t][j] = x[t]·W[j]·scale[j] + bias[j] for rows rows
// of x (ldx, ldo in elements), the weights' rows split across workers.
func matmulF32(out []float32, ldo int, x []float32, ldx int, rows int, l linear, workers int) {
	n, k := l.w.rows, l.w.cols
	parallel(n/2, workers, func(_, lo, hi int) {
		var o [8]float32
		for t0 := 0; t0 < rows; t0 += 4 {
			xt := x[t0*ldx:]
			for j := 2 * lo; j < 2*hi; j += 2 {
				dotsI8(xt, ldx, l.w.data[j*k:], k, k, &o)
				s0, s1 := l.w.scale[j], l.w.scale[j+1]
				b0, b1 := l.bias[j], l.bias[j+1]
				for r := range 4 {
					row := out[(t0+r)*ldo+j:]
					row[0] = o[2*r]*s0 + b0
					row[1] = o[2*r+1]*s1 + b1
				}
			}
		}
	})
}

// parallel calls f over [0, n) cut into up to workers parts, each with its
// worker number; in the caller's goroutine when workers <= 1.
func parallel(n, workers int, f func(worker, lo, hi int)) {
	if workers <= 1 || n < 2 {
		f(0, 0, n)
		return
	}
	workers = min(workers, n)
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { f(w, w*n/workers, (w+1)*n/workers) })
	}
	f(0, 0, n/workers)
	wg.Wait()
}

// addNorm sets h = LayerNorm(h + delta) row by row.
func addNorm(h, delta []float32, rows, width int, ln norm, eps float32) {
	for i := range rows * width {
		h[i] += delta[i]
	}
	layerNorm(h, rows, width, ln, eps)
}

func layerNorm(h []float32, rows, width int, ln norm, eps float32) {
	for t := range rows {
		row := h[t*width : (t+1)*width]
		var mean float32
		for _, x := range row {
			mean += x
		}
		mean /= float32(width)
		var v float32
		for _, x := range row {
			d := x - mean
			v += d * d
		}
		inv := float32(1 / math.Sqrt(float64(v/float32(width)+eps)))
		for i, x := range row {
			row[i] = (x-mean)*inv*ln.gain[i] + ln.bias[i]
		}
	}
}

// gelu is BERT's exact GELU, x·Φ(x) = x/2·(1 + erf(x/√2)), with erf as
// erff computes it; the exponentials of a block run at once (expInPlace).
func gelu(x []float32, tmp []float32) {
	if n := len(x) &^ 7; useAVX2 && n > 0 {
		geluAsm(x[:n])
		x = x[n:]
	}
	const block = 256
	var t [block]float32
	for lo := 0; lo < len(x); lo += block {
		xs := x[lo:min(lo+block, len(x))]
		e := tmp[:len(xs)]
		for i, v := range xs {
			a := v * (math.Sqrt2 / 2)
			e[i] = -a * a
			if a < 0 {
				a = -a
			}
			t[i] = 1 / (1 + 0.3275911*a)
		}
		expInPlace(e)
		for i, v := range xs {
			ti := t[i]
			y := 1 - ti*(0.254829592+ti*(-0.284496736+ti*(1.421413741+ti*(-1.453152027+ti*1.061405429))))*e[i]
			if v < 0 {
				y = -y
			}
			xs[i] = 0.5 * v * (1 + y)
		}
	}
}

// erff is erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7,
// under float32's resolution of the result), as the reference script.
func erff(x float32) float32 {
	a := x
	if a < 0 {
		a = -a
	}
	t := 1 / (1 + 0.3275911*a)
	y := 1 - t*(0.254829592+t*(-0.284496736+t*(1.421413741+t*(-1.453152027+t*1.061405429))))*expf(-a*a)
	if x < 0 {
		return -y
	}
	return y
}

// expf is e^x in float32: x = n·ln2 + r with |r| <= ln2/2, e^r by its
// Taylor polynomial to degree 7 (relative error ~2e-8 before rounding),
// 2^n by the exponent bits. Inputs below -87 give 0 (softmax and erf only
// take e^x of x <= 0). Rounding by conversion, not math.Floor: this is a
// fifth of a forward pass otherwise.
func expf(x float32) float32 {
	if x < -87 {
		return 0
	}
	if x > 88 {
		return float32(math.Inf(1))
	}
	k := x * 1.4426950408889634
	if k < 0 {
		k -= 0.5
	} else {
		k += 0.5
	}
	n := int32(k) // truncation toward zero of k ± 0.5: k rounded
	fn := float32(n)
	r := x - fn*0.693145751953125 - fn*1.428606765330187e-06
	p := 1 + r*(1+r*(0.5+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720+r*(1.0/5040)))))))
	return p * math.Float32frombits(uint32(n+127)<<23)
}
