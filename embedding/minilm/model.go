package minilm

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"unsafe"
)

// magic and formatVersion head minilm.bin (written by
// scripts/embedding/export_minilm.py).
const (
	magic         = "VGTM"
	formatVersion = 1
	align         = 64
)

// header is the JSON header of minilm.bin.
type header struct {
	Hidden       int          `json:"hidden_size"`
	Layers       int          `json:"num_hidden_layers"`
	Heads        int          `json:"num_attention_heads"`
	Intermediate int          `json:"intermediate_size"`
	MaxPositions int          `json:"max_position_embeddings"`
	VocabSize    int          `json:"vocab_size"`
	Eps          float64      `json:"layer_norm_eps"`
	MaxTokens    int          `json:"max_tokens"`
	Tensors      []tensorInfo `json:"tensors"`
}

type tensorInfo struct {
	Name   string `json:"name"`
	DType  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Offset int    `json:"offset"`
	Bytes  int    `json:"bytes"`
}

// qmat is a matrix of int8 rows with one float32 scale per row: element
// (r, c) is data[r*cols+c] * scale[r]. Linear layers store their weight as
// [out][in], so a row is one output's weights, contiguous along the
// reduction.
type qmat struct {
	rows, cols int
	data       []int8
	scale      []float32
	fsum       []float32 // Σ data over each row: the activations' offset's share of a product
	packed     []int8    // data in qgemm's order (packQGEMM), on CPUs with VNNI only
}

// packQGEMM fills q.packed: blocks of 32 rows, each a run of k/4 steps of
// 4 bytes of every row of the block (qgemmVNNI's order), so that one
// 64-byte load holds 4 bytes of k for 16 rows.
func (q *qmat) packQGEMM() {
	if q.rows%32 != 0 || q.cols%4 != 0 {
		return
	}
	k := q.cols
	q.packed = make([]int8, len(q.data))
	for b := 0; b < q.rows/32; b++ {
		blk := q.packed[b*32*k : (b+1)*32*k]
		for r := range 32 {
			row := q.data[(b*32+r)*k : (b*32+r+1)*k]
			for k4 := 0; k4 < k/4; k4++ {
				copy(blk[k4*128+4*r:k4*128+4*r+4], row[4*k4:4*k4+4])
			}
		}
	}
}

// rowSums fills q.sum.
func (q *qmat) rowSums() {
	q.fsum = make([]float32, q.rows)
	for r := range q.rows {
		var s int32
		for _, v := range q.data[r*q.cols : (r+1)*q.cols] {
			s += int32(v)
		}
		q.fsum[r] = float32(s)
	}
}

// linear is a dense layer: y = x Wᵀ + bias.
type linear struct {
	w    qmat
	bias []float32
}

// norm is a LayerNorm's gain and bias.
type norm struct{ gain, bias []float32 }

type layer struct {
	qkv    linear // query, key and value weights stacked: 3·hidden outputs
	attOut linear
	attLN  norm
	inter  linear
	out    linear
	outLN  norm
}

// model is the decoded network. Its slices alias the model file's bytes
// (int8 tensors) or are decoded once (float32 tensors).
type model struct {
	hdr      header
	words    qmat      // vocab × hidden
	position []float32 // maxPositions × hidden
	tokType  []float32 // token type 0's embedding
	embLN    norm
	layers   []layer
}

// decode reads minilm.bin. b must stay alive and unchanged as long as the
// model: int8 tensors are not copied.
func decode(b []byte) (*model, error) {
	if len(b) < 12 || string(b[:4]) != magic {
		return nil, fmt.Errorf("minilm: model file is not a vaultgraph transformer model")
	}
	if v := binary.LittleEndian.Uint32(b[4:]); v != formatVersion {
		return nil, fmt.Errorf("minilm: model file format %d, want %d", v, formatVersion)
	}
	hlen := int(binary.LittleEndian.Uint32(b[8:]))
	if 12+hlen > len(b) {
		return nil, fmt.Errorf("minilm: model file header of %d bytes in a file of %d", hlen, len(b))
	}
	m := &model{}
	if err := json.Unmarshal(b[12:12+hlen], &m.hdr); err != nil {
		return nil, fmt.Errorf("minilm: model file header: %w", err)
	}
	h := m.hdr
	if h.Hidden <= 0 || h.Heads <= 0 || h.Hidden%h.Heads != 0 || h.Layers <= 0 || h.Intermediate <= 0 ||
		h.MaxTokens <= 2 || h.MaxTokens > h.MaxPositions || h.Hidden%8 != 0 || h.Intermediate%8 != 0 {
		return nil, fmt.Errorf("minilm: model file has unusable dimensions %+v", h)
	}
	data := b[12+hlen:]
	byName := make(map[string]tensorInfo, len(h.Tensors))
	for _, t := range h.Tensors {
		if t.Offset < 0 || t.Bytes < 0 || t.Offset+t.Bytes > len(data) {
			return nil, fmt.Errorf("minilm: tensor %s lies outside the file", t.Name)
		}
		byName[t.Name] = t
	}
	r := reader{data: data, tensors: byName}
	m.words = r.qmat("embeddings.word_embeddings.weight", h.VocabSize, h.Hidden)
	m.position = r.f32("embeddings.position_embeddings.weight", h.MaxPositions*h.Hidden)
	tt := r.f32("embeddings.token_type_embeddings.weight", -1)
	if len(tt) >= h.Hidden {
		m.tokType = tt[:h.Hidden]
	}
	m.embLN = r.norm("embeddings.LayerNorm", h.Hidden)
	for i := range h.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		q := r.linear(p+"attention.self.query", h.Hidden, h.Hidden)
		k := r.linear(p+"attention.self.key", h.Hidden, h.Hidden)
		v := r.linear(p+"attention.self.value", h.Hidden, h.Hidden)
		m.layers = append(m.layers, layer{
			qkv:    stack(q, k, v),
			attOut: r.linear(p+"attention.output.dense", h.Hidden, h.Hidden),
			attLN:  r.norm(p+"attention.output.LayerNorm", h.Hidden),
			inter:  r.linear(p+"intermediate.dense", h.Intermediate, h.Hidden),
			out:    r.linear(p+"output.dense", h.Hidden, h.Intermediate),
			outLN:  r.norm(p+"output.LayerNorm", h.Hidden),
		})
	}
	if r.err != nil {
		return nil, r.err
	}
	if useVNNI {
		for i := range m.layers {
			l := &m.layers[i]
			for _, w := range []*qmat{&l.qkv.w, &l.attOut.w, &l.inter.w, &l.out.w} {
				w.packQGEMM()
			}
		}
	}
	return m, nil
}

// stack puts the rows of linears with the same input one after the other,
// so that one product computes all of them.
func stack(ls ...linear) linear {
	out := linear{w: qmat{cols: ls[0].w.cols}}
	for _, l := range ls {
		out.w.rows += l.w.rows
		out.w.data = append(out.w.data, l.w.data...)
		out.w.scale = append(out.w.scale, l.w.scale...)
		out.bias = append(out.bias, l.bias...)
	}
	out.w.rowSums()
	return out
}

// reader looks tensors up by name and remembers the first problem.
type reader struct {
	data    []byte
	tensors map[string]tensorInfo
	err     error
}

func (r *reader) get(name, dtype string, n int) []byte {
	t, ok := r.tensors[name]
	switch {
	case r.err != nil:
		return nil
	case !ok:
		r.err = fmt.Errorf("minilm: model file lacks tensor %s", name)
		return nil
	case t.DType != dtype:
		r.err = fmt.Errorf("minilm: tensor %s is %s, want %s", name, t.DType, dtype)
		return nil
	}
	size := 1
	if dtype == "f32" {
		size = 4
	}
	if n >= 0 && t.Bytes != n*size || t.Bytes%size != 0 {
		r.err = fmt.Errorf("minilm: tensor %s has %d bytes, want %d elements of %d", name, t.Bytes, n, size)
		return nil
	}
	return r.data[t.Offset : t.Offset+t.Bytes]
}

// f32 decodes a float32 tensor of n elements (n < 0: any size).
func (r *reader) f32(name string, n int) []float32 {
	b := r.get(name, "f32", n)
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func (r *reader) qmat(name string, rows, cols int) qmat {
	b := r.get(name, "i8", rows*cols)
	scale := r.f32(name+".scale", rows)
	if r.err != nil {
		return qmat{}
	}
	// int8 and byte have the same size and alignment; the weights are
	// read in place, never written.
	data := unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
	q := qmat{rows: rows, cols: cols, data: data, scale: scale}
	q.rowSums()
	return q
}

func (r *reader) linear(name string, out, in int) linear {
	return linear{w: r.qmat(name+".weight", out, in), bias: r.f32(name+".bias", out)}
}

func (r *reader) norm(name string, n int) norm {
	return norm{gain: r.f32(name+".weight", n), bias: r.f32(name+".bias", n)}
}
