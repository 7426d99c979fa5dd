package flat

import (
	"math"
	"runtime"
	"slices"
	"sync"
)

// Int8 holds int8 copies of unit vectors of one dimension, in rows the
// caller numbers (the embedded store numbers them by note slot), for a
// first, approximate pass of a search: a row is a quarter of a float32
// one, so a scan reads a quarter of the memory, and the caller then
// rescores the best few hundred with their exact vectors, which it keeps
// elsewhere (on disk). Each row is scaled to use the whole int8 range
// (value = int8 × scale, one scale per row), which keeps a cosine's error
// under about 0.01 for the vectors of text embedders.
//
// Not safe for concurrent use; TopK only reads, as Index's.
type Int8 struct {
	dim   int
	data  []int8    // row r is data[r*dim : (r+1)*dim]
	scale []float32 // by row; 0 for a row without a vector
	n     int       // rows holding a vector
}

// NewInt8 returns an empty Int8 of dim dimensions.
func NewInt8(dim int) *Int8 { return &Int8{dim: dim} }

// Reserve makes room for rows 0 to rows-1 at once, so that setting them
// one by one does not grow the arrays step by step (each step a copy of
// everything set so far, and up to a quarter of it unused at the end).
func (x *Int8) Reserve(rows int) {
	if rows > len(x.scale) {
		x.scale = append(x.scale, make([]float32, rows-len(x.scale))...)
		x.data = append(x.data, make([]int8, rows*x.dim-len(x.data))...)
	}
}

// Dim is the dimension of the rows.
func (x *Int8) Dim() int { return x.dim }

// Len is how many rows hold a vector.
func (x *Int8) Len() int { return x.n }

// Set stores unit (see Normalize) in row, replacing what the row held. It
// panics when unit's length is not the dimension (as Index.Set).
func (x *Int8) Set(row int, unit []float32) {
	if len(unit) != x.dim {
		panic("flat: vector of the wrong dimension")
	}
	if row >= len(x.scale) {
		rows := max(row+1, len(x.scale)+len(x.scale)/4)
		x.scale = append(x.scale, make([]float32, rows-len(x.scale))...)
		x.data = append(x.data, make([]int8, rows*x.dim-len(x.data))...)
	}
	if x.scale[row] == 0 {
		x.n++
	}
	x.scale[row] = Quantize(x.data[row*x.dim:(row+1)*x.dim], unit)
	if x.scale[row] == 0 { // a zero vector: nothing to find
		x.n--
	}
}

// Clear empties row.
func (x *Int8) Clear(row int) {
	if row < len(x.scale) && x.scale[row] != 0 {
		x.scale[row] = 0
		x.n--
	}
}

// Has reports whether row holds a vector.
func (x *Int8) Has(row int) bool { return row < len(x.scale) && x.scale[row] != 0 }

// Quantize writes v scaled into int8 to dst (len(v) values) and returns
// the scale: v[i] ≈ dst[i] × scale. A zero vector gives scale 0.
func Quantize(dst []int8, v []float32) float32 {
	var m float32
	for _, f := range v {
		m = max(m, float32(math.Abs(float64(f))))
	}
	if m == 0 || math.IsNaN(float64(m)) || math.IsInf(float64(m), 0) {
		clear(dst[:len(v)])
		return 0
	}
	inv := 127 / m
	for i, f := range v {
		dst[i] = int8(math.Round(float64(f * inv)))
	}
	return m / 127
}

// RowScore is a row and its approximate cosine with a query.
type RowScore struct {
	Row   int
	Score float32
}

// TopK returns the k rows with the highest approximate cosine to the unit
// vector q, best first (ties by row). A query of another dimension finds
// nothing.
func (x *Int8) TopK(q []float32, k int) []RowScore {
	rows := len(x.scale)
	if k <= 0 || x.n == 0 || len(q) != x.dim {
		return nil
	}
	qi := make([]int8, x.dim)
	qs := Quantize(qi, q)
	if qs == 0 {
		return nil
	}
	parts := 1
	if rows >= parallelRows {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	tops := make([][]RowScore, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*rows/parts, (p+1)*rows/parts
		wg.Go(func() { tops[p] = x.scan(qi, qs, k, lo, hi) })
	}
	wg.Wait()
	all := slices.Concat(tops...)
	slices.SortFunc(all, compareRowScores)
	return all[:min(k, len(all))]
}

// compareRowScores orders best first, ties by row.
func compareRowScores(a, b RowScore) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return a.Row - b.Row
}

// scan scores rows lo..hi-1 and keeps the best k in a min-heap.
func (x *Int8) scan(q []int8, qs float32, k, lo, hi int) []RowScore {
	h := make([]RowScore, 0, k)
	dim := x.dim
	worse := func(a, b RowScore) bool { return compareRowScores(a, b) > 0 } // a worse than b
	for r := lo; r < hi; r++ {
		s := x.scale[r]
		if s == 0 {
			continue
		}
		c := RowScore{Row: r, Score: float32(dotInt8(q, x.data[r*dim:(r+1)*dim])) * qs * s}
		if len(h) < k {
			h = append(h, c)
			for i := len(h) - 1; i > 0 && worse(h[i], h[(i-1)/2]); i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
			continue
		}
		if !worse(h[0], c) {
			continue
		}
		h[0] = c
		for i := 0; ; {
			l, rr, m := 2*i+1, 2*i+2, i
			if l < len(h) && worse(h[l], h[m]) {
				m = l
			}
			if rr < len(h) && worse(h[rr], h[m]) {
				m = rr
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	return h
}

// dotInt8Go is the portable int8 dot product of two rows of equal length.
func dotInt8Go(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// Dot is the dot product of two float32 vectors of equal length (what
// Index scores with), for callers that rescore Int8's candidates.
func Dot(a, b []float32) float32 { return dot(a, b) }
