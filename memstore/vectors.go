package memstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/flat"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// Vectors on disk: one fsynced kv record a note (vectorBucketPrefix +
// project, key = note ID), read back at start (loadVectors), checked for
// staleness (StaleVectors) and written by SetNoteVectors. search.go says
// how they are searched.

// vectorBucketPrefix + project names the kv bucket of a project's vectors.
const vectorBucketPrefix = "note_vectors:"

// storedVector is a vector as persisted.
type storedVector struct {
	Model  string `json:"m"`
	Hash   string `json:"h"`
	Vector []byte `json:"v,omitempty"` // little-endian float32s, normalised
}

// loadVectors reads the project's persisted vectors into g's search
// index, a chunk at a time: each read in a transaction of its own, then
// applied under the write lock (never taken inside a transaction), so that
// only a chunk's float32 vectors are in memory at once. A note whose
// vector was written since the load keeps that one; a vector whose note is
// not in memory is parked.
//
// The records are decoded into buffers reused from chunk to chunk
// (vectorChunk): the load's garbage was two copies of every vector (its
// bytes and its floats, ~250 MB at 100k notes), which kept the collector
// running and the heap at its target while the start built everything else.
func (s *Store) loadVectors(project string, g *graph) (bad damaged, err error) {
	g.mu.Lock()
	g.search.rowsHint = int(g.slots)
	// Every node gets a record: reserved at once, not grown slot by slot
	// (~17 MB of garbage at 100k notes, while the heap is at its largest).
	g.search.records = slices.Grow(g.search.records, int(g.slots)-len(g.search.records))
	g.mu.Unlock()
	err = s.eachVectorChunk(project, false, &bad, func(c *vectorChunk) {
		g.mu.Lock()
		defer g.mu.Unlock()
		x := g.search
		for i := range c.entries {
			id, model, hash, vec := c.entry(i)
			if nd := g.notes[id]; nd != nil {
				if _, set := x.record(nd); set {
					continue // written since the load
				}
				x.set(nd, model, hash, vec) // copies what it keeps
			} else {
				x.parked[id] = storedVector{Model: strings.Clone(model), Hash: strings.Clone(hash), Vector: encodeVector(vec)}
			}
		}
	})
	return bad, err
}

// eachVectorChunk reads the project's stored vectors a chunk at a time,
// each chunk in a read transaction of its own, decodes them into a chunk
// reused from one to the next (without their floats when checkOnly, see
// vectorChunk), and calls fn with each chunk outside the transaction. A
// record that does not decode is left out and added to bad: the note has
// no vector, so the next sync's embedding finds it stale and embeds it
// again.
func (s *Store) eachVectorChunk(project string, checkOnly bool, bad *damaged, fn func(c *vectorChunk)) error {
	const chunkSize = 2048
	errChunk := errors.New("chunk full")
	c := vectorChunk{checkOnly: checkOnly}
	for from, more := "", true; more; {
		c.reset()
		err := s.kv.View(func(tx *kv.Tx) error {
			return tx.ForEachFrom(vectorBucketPrefix+project, from, func(id string, value []byte) error {
				if len(c.entries) == chunkSize {
					from = id
					return errChunk
				}
				if err := c.add(id, value); err != nil {
					bad.add(id, fmt.Errorf("decode vector of %s: %w", id, err))
				}
				return nil
			})
		})
		switch {
		case errors.Is(err, errChunk):
		case err != nil:
			return err
		default:
			more = false
		}
		fn(&c)
	}
	return nil
}

// vectorChunk is a chunk of stored vectors decoded for loadVectors: their
// model and hash strings in one byte buffer and their floats in one float
// buffer, both reused by the next chunk. What entry returns is valid until
// reset.
type vectorChunk struct {
	entries []vectorEntry
	text    []byte
	floats  []float32
	raw     []byte // a record's vector bytes, from base64
	// checkOnly: each vector's bytes are decoded, which checks the
	// record, but not kept as floats (entry gives no vector): what a
	// stale check needs (staleVectorsOnDisk).
	checkOnly bool
}

// vectorEntry is one decoded record: offsets into the chunk's buffers.
type vectorEntry struct {
	id                           string
	modelEnd, hashEnd, textStart int
	floatStart, floatEnd         int
}

func (c *vectorChunk) reset() {
	c.entries, c.text, c.floats = c.entries[:0], c.text[:0], c.floats[:0]
}

// add decodes one stored record (storedVector's JSON), exactly as
// json.Unmarshal would: records of the shape json.Marshal writes (keys in
// order, strings of plain ASCII without escapes) are read in place, any
// other through json.Unmarshal.
func (c *vectorChunk) add(id string, rec []byte) error {
	e := vectorEntry{id: id, textStart: len(c.text), floatStart: len(c.floats)}
	model, hash, vec64, ok := splitStoredVector(rec)
	var raw []byte
	if ok {
		n := base64.StdEncoding.DecodedLen(len(vec64))
		c.raw = slices.Grow(c.raw[:0], n)[:n]
		m, err := base64.StdEncoding.Decode(c.raw, vec64)
		if err != nil {
			ok = false
		} else {
			raw = c.raw[:m]
		}
	}
	if !ok {
		var sv storedVector
		if err := json.Unmarshal(rec, &sv); err != nil {
			return err
		}
		model, hash, raw = []byte(sv.Model), []byte(sv.Hash), sv.Vector
	}
	c.text = append(c.text, model...)
	e.modelEnd = len(c.text)
	c.text = append(c.text, hash...)
	e.hashEnd = len(c.text)
	if len(raw) > 0 && len(raw)%4 == 0 && !c.checkOnly { // decodeVector's rule
		for i := 0; i < len(raw); i += 4 {
			c.floats = append(c.floats, math.Float32frombits(binary.LittleEndian.Uint32(raw[i:])))
		}
	}
	e.floatEnd = len(c.floats)
	c.entries = append(c.entries, e)
	return nil
}

// entry returns the i-th record: its note ID, model, hash and vector (nil
// for none), the last three windows into the chunk's buffers.
func (c *vectorChunk) entry(i int) (id, model, hash string, vec []float32) {
	e := c.entries[i]
	text := c.text[e.textStart:e.hashEnd]
	model = unsafe.String(unsafe.SliceData(text), e.modelEnd-e.textStart)
	hash = unsafe.String(unsafe.SliceData(c.text[e.modelEnd:e.hashEnd]), e.hashEnd-e.modelEnd)
	if e.floatEnd > e.floatStart {
		vec = c.floats[e.floatStart:e.floatEnd:e.floatEnd]
	}
	return e.id, model, hash, vec
}

// splitStoredVector reads a storedVector record of exactly the shape
// json.Marshal writes: {"m":"…","h":"…"} or {"m":"…","h":"…","v":"…"},
// each string plain printable ASCII without a backslash (so that its bytes
// are its value). ok is false for anything else, except that the
// vector's string is only checked for line breaks, which the base64
// decoder would skip: that decoder refuses any other byte a plain base64
// string does not hold (a quote, a backslash, any other control or
// non-ASCII byte), and its caller then reads the record as JSON. The
// vector is most of a record: scanning it byte by byte here was a
// quarter of a load's decoding.
func splitStoredVector(rec []byte) (model, hash, vec64 []byte, ok bool) {
	rest, ok := bytes.CutPrefix(rec, []byte(`{"m":"`))
	if !ok {
		return nil, nil, nil, false
	}
	if model, rest, ok = plainString(rest); !ok {
		return nil, nil, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"h":"`)); !ok {
		return nil, nil, nil, false
	}
	if hash, rest, ok = plainString(rest); !ok {
		return nil, nil, nil, false
	}
	if string(rest) == "}" {
		return model, hash, nil, true
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"v":"`)); !ok {
		return nil, nil, nil, false
	}
	if vec64, ok = bytes.CutSuffix(rest, []byte(`"}`)); !ok ||
		bytes.IndexByte(vec64, '\n') >= 0 || bytes.IndexByte(vec64, '\r') >= 0 {
		return nil, nil, nil, false
	}
	return model, hash, vec64, true
}

// plainString splits b, which follows a string's opening quote, at its
// closing quote; ok is false when a byte before it is not printable ASCII
// or is a backslash (an escape, which json.Unmarshal would decode).
func plainString(b []byte) (s, rest []byte, ok bool) {
	for i, ch := range b {
		switch {
		case ch == '"':
			return b[:i], b[i+1:], true
		case ch < 0x20 || ch >= 0x7f || ch == '\\':
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// StaleVectors lists the notes without a vector of model for their current
// content, by ID.
func (s *Store) StaleVectors(ctx context.Context, project, model string) ([]core.StaleNote, error) {
	if g, err := s.loadedGraph(project); err == nil && g != nil && g.searchPending() {
		return s.staleVectorsOnDisk(ctx, project, model)
	}
	if err := s.awaitLoaded(ctx, project, true); err != nil {
		return nil, fmt.Errorf("memstore: stale vectors: %w", err)
	}
	g, unlock, err := s.reader(ctx, "stale vectors", project)
	defer unlock()
	if err != nil || g == nil {
		return nil, err
	}
	var out []core.StaleNote
	for _, nd := range g.all {
		rec, ok := g.search.record(nd)
		if !ok || rec.model != model || rec.hash != nd.Hash {
			out = append(out, core.StaleNote{ID: nd.ID, Hash: nd.Hash})
		}
	}
	return out, nil
}

// staleVectorsOnDisk is StaleVectors for a graph whose search index is
// still on disk only (graph.searchPending, see LoadSearchOnUse): each
// stored record is compared with its note as it is read, and nothing is
// loaded into the index. Every vector the index would hold is on disk
// (SetNoteVectors writes there first), so the answer is the same.
func (s *Store) staleVectorsOnDisk(ctx context.Context, project, model string) ([]core.StaleNote, error) {
	g, unlock, err := s.reader(ctx, "stale vectors", project)
	defer unlock()
	if err != nil || g == nil {
		return nil, err
	}
	current := make([]bool, g.slots) // by slot
	var bad damaged
	err = s.eachVectorChunk(project, true, &bad, func(c *vectorChunk) {
		for i := range c.entries {
			id, m, hash, _ := c.entry(i)
			if nd := g.notes[id]; nd != nil && m == model && hash == nd.Hash {
				current[nd.slot] = true
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("memstore: stale vectors: %w", core.NewProviderError("read state", err))
	}
	bad.report(s, project, "vectors", vectorsRebuilt)
	var out []core.StaleNote
	for _, nd := range g.all {
		if !current[nd.slot] {
			out = append(out, core.StaleNote{ID: nd.ID, Hash: nd.Hash})
		}
	}
	return out, nil
}

// SetNoteVectors records vectors of model for existing notes, on disk
// first (one fsynced transaction), then in memory.
func (s *Store) SetNoteVectors(ctx context.Context, project, model string, vectors []core.NoteVector) error {
	if err := s.check(ctx); err != nil {
		return fmt.Errorf("memstore: set note vectors: %w", err)
	}
	if model == "" {
		return fmt.Errorf("memstore: set note vectors: %w", core.InvalidArgument("model is empty"))
	}
	if err := checkDimensions(vectors); err != nil {
		return fmt.Errorf("memstore: set note vectors: %w", err)
	}
	g, err := s.graph(project)
	if err != nil {
		return fmt.Errorf("memstore: set note vectors: %w", err)
	}
	if g == nil || len(vectors) == 0 {
		return nil
	}
	// One call's vectors are normalised into one slab and their records
	// encoded into one buffer (a window of it per key: the transaction
	// keeps the values until it commits), instead of a normalised copy, a
	// byte copy and a JSON encoding of each vector: ~2.5 KB of garbage a
	// note in an embedding pass.
	type entry struct {
		id, hash string
		vec      []float32 // normalised; nil for a zero vector
		rec      []byte    // the stored record
	}
	entries := make([]entry, 0, len(vectors))
	dim := 0
	for _, v := range vectors {
		dim = max(dim, len(v.Vector))
	}
	sc := vectorScratchPool.Get().(*vectorScratch)
	slab := slices.Grow(sc.slab[:0], dim*len(vectors))
	buf := slices.Grow(sc.buf[:0], len(vectors)*(len(model)+64+base64.StdEncoding.EncodedLen(4*dim)+24))
	defer func() { // once committed and copied into the rows
		sc.slab, sc.buf = slab[:0], buf[:0]
		vectorScratchPool.Put(sc)
	}()
	g.mu.RLock()
	for _, v := range vectors {
		if g.notes[v.ID] == nil {
			continue
		}
		vec := flat.NormalizeInto(slab[len(slab):len(slab)+len(v.Vector)], v.Vector)
		slab = slab[:len(slab)+len(vec)]
		start := len(buf)
		buf = appendStoredVector(buf, model, v.Hash, vec)
		entries = append(entries, entry{id: v.ID, hash: v.Hash, vec: vec, rec: buf[start:len(buf):len(buf)]})
	}
	g.mu.RUnlock()
	if len(entries) == 0 {
		return nil
	}
	bucket := vectorBucketPrefix + project
	err = s.updateOutsideNotes(func(tx *kv.Tx) error {
		for _, e := range entries {
			if err := tx.PutRaw(bucket, e.id, e.rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("memstore: set note vectors: %w", core.NewProviderError("write state", err))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.search.rowsHint == 0 {
		// A new slab makes room for every note at once, as a load does,
		// instead of growing by a quarter 40 times over a first pass.
		g.search.rowsHint = int(g.slots)
	}
	for _, e := range entries {
		if nd := g.notes[e.id]; nd != nil { // not deleted meanwhile
			g.search.set(nd, model, e.hash, e.vec)
		}
	}
	return nil
}

// vectorScratch is what SetNoteVectors normalises and encodes a call's
// vectors into, kept for the next call: an embedding pass stores a batch
// after another, and made anew these were ~2.5 MB of garbage a batch.
type vectorScratch struct {
	slab []float32
	buf  []byte
}

var vectorScratchPool = sync.Pool{New: func() any { return new(vectorScratch) }}

// appendStoredVector appends the record json.Marshal writes for
// storedVector{model, hash, encodeVector(vec)}, byte for byte, without
// its reflection and copies; a model or hash that json.Marshal would
// escape goes through json.Marshal.
func appendStoredVector(buf []byte, model, hash string, vec []float32) []byte {
	if !jsonPlain(model) || !jsonPlain(hash) {
		b, err := json.Marshal(storedVector{Model: model, Hash: hash, Vector: encodeVector(vec)})
		if err != nil { // cannot happen for strings and bytes
			panic(err)
		}
		return append(buf, b...)
	}
	buf = append(buf, `{"m":"`...)
	buf = append(buf, model...)
	buf = append(buf, `","h":"`...)
	buf = append(buf, hash...)
	if len(vec) == 0 {
		return append(buf, `"}`...)
	}
	buf = append(buf, `","v":"`...)
	// The vector's bytes go right after the room for their base64, which
	// is then encoded from them: one growth of buf, no scratch copy.
	enc := base64.StdEncoding
	raw := 4 * len(vec)
	n := enc.EncodedLen(raw)
	start := len(buf)
	buf = slices.Grow(buf, n+raw+2)[:start+n+raw]
	for i, x := range vec {
		binary.LittleEndian.PutUint32(buf[start+n+4*i:], math.Float32bits(x))
	}
	enc.Encode(buf[start:start+n], buf[start+n:])
	return append(buf[:start+n], `"}`...)
}

// jsonPlain reports whether json.Marshal writes s as it is between its
// quotes: printable ASCII without a quote, backslash or the characters it
// escapes for HTML.
func jsonPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// checkDimensions rejects a batch whose non-empty vectors differ in length.
func checkDimensions(vectors []core.NoteVector) error {
	dim := 0
	for _, v := range vectors {
		if len(v.Vector) == 0 {
			continue
		}
		if dim == 0 {
			dim = len(v.Vector)
		} else if len(v.Vector) != dim {
			return core.InvalidArgument("vectors of one batch differ in length: %d and %d", dim, len(v.Vector))
		}
	}
	return nil
}

func encodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
