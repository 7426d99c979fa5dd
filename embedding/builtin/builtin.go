// Package builtin is vaultgraph's offline embedder: a static embedding
// table distilled from all-MiniLM-L6-v2 (model2vec's recipe, see README.md)
// and compiled into the binary. Embedding a text is WordPiece tokenisation,
// a table lookup per token, a sum and an L2 normalisation: no network, no
// cgo, no service, and thousands of notes per second on one core.
package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/vaultgraph/vaultgraph/embedding/wordpiece"
)

// Name is the provider name the built-in embedder reports.
const Name = "builtin"

var (
	//go:embed model.bin
	modelBin []byte
	//go:embed vocab.txt
	vocabTxt []byte
	//go:embed manifest.json
	manifestJSON []byte
)

// magic and formatVersion head model.bin (written by
// scripts/embedding/distill.py).
const (
	magic         = "VGSE"
	formatVersion = 1
	headerSize    = 16
)

// Embedder embeds texts with the built-in static model. It implements
// core.Embedder and is safe for concurrent use.
type Embedder struct {
	id     string
	dim    int
	scales []float32 // one per dimension: value = int8 * scale
	table  []byte    // vocab size x dim int8 values, row-major; aliases the embedded file
	unk    int32
	tok    *wordpiece.Tokenizer
	bufs   sync.Pool // *scratch
}

type scratch struct {
	ids  []int32
	sums []int32
}

// manifest is the part of manifest.json the embedder reads.
type manifest struct {
	ID        string `json:"id"`
	Dimension int    `json:"dimension"`
	VocabSize int    `json:"vocab_size"`
	UnkID     int32  `json:"unk_token_id"`
}

var shared = sync.OnceValues(load)

// Tokenizer returns the WordPiece tokenizer of all-MiniLM-L6-v2, the
// vocabulary compiled into this package, shared with the in-process
// transformer (embedding/minilm), which reads the same token ids.
func Tokenizer() (*wordpiece.Tokenizer, error) {
	e, err := shared()
	if err != nil {
		return nil, err
	}
	return e.tok, nil
}

// New returns the built-in embedder. The model is decoded once per process
// (about 8 MB, a few milliseconds) and shared by every caller.
func New() (*Embedder, error) { return shared() }

func load() (*Embedder, error) {
	var m manifest
	if err := json.Unmarshal(manifestJSON, &m); err != nil {
		return nil, fmt.Errorf("builtin: read manifest: %w", err)
	}
	tok, err := wordpiece.Load(bytes.NewReader(vocabTxt))
	if err != nil {
		return nil, fmt.Errorf("builtin: %w", err)
	}
	e, err := decodeModel(modelBin)
	if err != nil {
		return nil, err
	}
	if e.dim != m.Dimension || len(e.table)/e.dim != tok.VocabSize() || tok.VocabSize() != m.VocabSize {
		return nil, fmt.Errorf("builtin: model (%d x %d), vocabulary (%d) and manifest (%d x %d) disagree",
			len(e.table)/e.dim, e.dim, tok.VocabSize(), m.VocabSize, m.Dimension)
	}
	if m.UnkID != tok.UnknownID() {
		return nil, fmt.Errorf("builtin: manifest unknown token %d, vocabulary %d", m.UnkID, tok.UnknownID())
	}
	e.id, e.tok, e.unk = m.ID, tok, m.UnkID
	return e, nil
}

// decodeModel reads model.bin: magic, then format version, vocabulary size
// and dimension as little-endian uint32, dimension float32 scales, and the
// int8 table.
func decodeModel(b []byte) (*Embedder, error) {
	if len(b) < headerSize || string(b[:4]) != magic {
		return nil, fmt.Errorf("builtin: model.bin is not a static embedding table")
	}
	version := binary.LittleEndian.Uint32(b[4:])
	rows := int(binary.LittleEndian.Uint32(b[8:]))
	dim := int(binary.LittleEndian.Uint32(b[12:]))
	if version != formatVersion {
		return nil, fmt.Errorf("builtin: model.bin format %d, want %d", version, formatVersion)
	}
	if dim <= 0 || rows <= 0 || len(b) != headerSize+4*dim+rows*dim {
		return nil, fmt.Errorf("builtin: model.bin is %d bytes, want %d for %d x %d", len(b), headerSize+4*dim+rows*dim, rows, dim)
	}
	e := &Embedder{dim: dim, scales: make([]float32, dim), table: b[headerSize+4*dim:]}
	for d := range dim {
		e.scales[d] = math.Float32frombits(binary.LittleEndian.Uint32(b[headerSize+4*d:]))
	}
	return e, nil
}

// Name returns "builtin".
func (e *Embedder) Name() string { return Name }

// Model identifies the table: its teacher, dimension and a digest of the
// file, so a regenerated table is a different model.
func (e *Embedder) Model() string { return e.id }

// Dimension is the length of every vector (256).
func (e *Embedder) Dimension() int { return e.dim }

// Embed returns one L2-normalised vector per text. Tokens are not
// truncated: a long note is the mean of all its tokens. A text without
// known tokens gives a zero vector. Embed checks ctx between texts.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*e.dim) // one allocation for all vectors
	s, _ := e.bufs.Get().(*scratch)
	if s == nil {
		s = &scratch{sums: make([]int32, e.dim)}
	}
	defer e.bufs.Put(s)
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("builtin: embed: %w", err)
		}
		out[i] = flat[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		e.embedOne(s, text, out[i])
	}
	return out, nil
}

// embedOne writes text's vector into v. Rows are summed as integers (an
// int32 sum of int8 values cannot overflow below 16 million tokens) and
// scaled once: the per-dimension scale makes that exact.
func (e *Embedder) embedOne(s *scratch, text string, v []float32) {
	s.ids = e.tok.AppendIDs(s.ids[:0], text)
	sums := s.sums
	clear(sums)
	n := 0
	for _, id := range s.ids {
		if id == e.unk {
			continue // [UNK] carries no meaning; its row is zero anyway
		}
		addRow(sums, e.table[int(id)*e.dim:(int(id)+1)*e.dim])
		n++
	}
	if n == 0 {
		return
	}
	var norm float64
	for d, x := range sums {
		f := float32(x) * e.scales[d]
		v[d] = f
		norm += float64(f) * float64(f)
	}
	if norm == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(norm))
	for d := range v {
		v[d] *= inv
	}
}

// addRow adds the int8 values of row to sums (same length), eight at a
// time: the hot loop of embedding.
func addRow(sums []int32, row []byte) {
	row = row[:len(sums)] // one bounds check instead of one per element
	i := 0
	for ; i+8 <= len(sums); i += 8 {
		s, r := sums[i:i+8:i+8], row[i:i+8:i+8]
		s[0] += int32(int8(r[0]))
		s[1] += int32(int8(r[1]))
		s[2] += int32(int8(r[2]))
		s[3] += int32(int8(r[3]))
		s[4] += int32(int8(r[4]))
		s[5] += int32(int8(r[5]))
		s[6] += int32(int8(r[6]))
		s[7] += int32(int8(r[7]))
	}
	for ; i < len(sums); i++ {
		sums[i] += int32(int8(row[i]))
	}
}
