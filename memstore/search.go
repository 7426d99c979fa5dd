package memstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/flat"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// Semantic search in the embedded store (core.SearchStore).
//
// Vectors are durable: each SetNoteVectors is one fsynced kv transaction
// (bucket vectorBucketPrefix+project, key = note ID), so a restart embeds
// nothing again. Notes are not durable, so the vectors read back at start
// wait in searchIndex.parked until the sync brings their note back; only
// then do they join the searchable rows.
//
// Vectors live in memory as int8 (flat.Int8, rows by node slot: a quarter
// of their float32 size) and on disk as float32. A search scans the int8
// rows in full for rescoreCandidates(limit) candidates, reads those
// candidates' exact vectors from disk and ranks them by their exact cosine:
// the answer is the exact search's (same IDs, same scores) unless an exact
// top hit falls outside the int8 candidates, which the int8 error (under
// about 0.01 of a cosine) makes rare (docs/ARCHITECTURE.md gives the
// measured recall). Keyword relevance is embedding/keyword's BM25 over
// title and content, kept current on every write.

// vectorBucketPrefix + project names the kv bucket of a project's vectors.
const vectorBucketPrefix = "note_vectors:"

// searchIndex is the search state of one project's graph, guarded by the
// graph's mutex.
type searchIndex struct {
	keywords *kwIndex
	// records is each note's vector record, by node slot like the rows:
	// a slice of 40 bytes a note instead of a map keyed by ID with its own
	// copies of the ID, model and hash strings (~25 MB at 100k notes).
	records []vectorRecord
	models  []string // the models of records, each string once
	// rowsHint is how many rows a new slab makes room for at once: the
	// graph's slots when its vectors load (0: grow as rows are set).
	rowsHint int
	slabs    map[string]*flat.Int8   // model -> its vectors, rows by node slot
	parked   map[string]storedVector // read from disk, note not synced yet
}

// vectorRecord says which model and content a note's vector came from
// (a note embedded with nothing to embed has a record but no row).
type vectorRecord struct {
	model, hash string
	set         bool
}

// storedVector is a vector as persisted.
type storedVector struct {
	Model  string `json:"m"`
	Hash   string `json:"h"`
	Vector []byte `json:"v,omitempty"` // little-endian float32s, normalised
}

func newSearchIndex() *searchIndex {
	return &searchIndex{
		keywords: newKwIndex(),
		slabs:    map[string]*flat.Int8{},
		parked:   map[string]storedVector{},
	}
}

// record returns nd's vector record, if it has one.
func (x *searchIndex) record(nd *node) (vectorRecord, bool) {
	if int(nd.slot) >= len(x.records) {
		return vectorRecord{}, false
	}
	rec := x.records[nd.slot]
	return rec, rec.set
}

// model returns model as the one string kept for it.
func (x *searchIndex) model(model string) string {
	for _, m := range x.models {
		if m == model {
			return m
		}
	}
	model = strings.Clone(model) // it may be a window into a decoded record
	x.models = append(x.models, model)
	return model
}

// noteTerms gives the keyword analysis of the i-th note of a batch: what
// keyword search sees of a note, its title and its content (kwCounter.add).
type noteTerms func(i int) (terms []string, counts []int32, length int32)

// parallelAnalysis is the batch size from which UpsertNotes analyses the
// notes' keyword text on every CPU before it takes the write lock: a first
// sync of 100k notes spent seconds tokenizing on one core.
const parallelAnalysis = 256

// analyzeChunk analyses the notes of batch in chunk c (aheadChunk notes)
// into out (nil: a new one).
func analyzeChunk(c *kwCounter, batch []core.Note, chunk int, out *kwTerms) *kwTerms {
	notes := batch[chunk*aheadChunk : min((chunk+1)*aheadChunk, len(batch))]
	if out == nil {
		size := 0
		for i := range notes {
			size += len(notes[i].Title) + len(notes[i].Content)
		}
		// About one distinct term in 12 bytes of text, a lowered one in 40.
		out = &kwTerms{
			ends:    make([]int32, 0, len(notes)),
			lengths: make([]int32, 0, len(notes)),
			terms:   make([]string, 0, size/12),
			counts:  make([]int32, 0, size/12),
			text:    make([]byte, 0, size/40),
		}
	}
	for i := range notes {
		c.add(out, notes[i].Title, notes[i].Content)
	}
	return out
}

// reset empties t for another chunk, keeping its arrays: nothing may hold
// a term of it any more.
func (t *kwTerms) reset() {
	clear(t.terms) // no window into a note's text is kept alive
	t.terms, t.counts, t.ends, t.lengths, t.text = t.terms[:0], t.counts[:0], t.ends[:0], t.lengths[:0], t.text[:0]
}

// analyzeNotes returns the keyword analysis of each note of batch,
// computed now: on every CPU for a large batch.
func analyzeNotes(batch []core.Note) noteTerms {
	chunks := make([]*kwTerms, (len(batch)+aheadChunk-1)/aheadChunk)
	workers := 1
	if len(batch) >= parallelAnalysis {
		workers = min(runtime.GOMAXPROCS(0), len(chunks))
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var c kwCounter
			for k := w; k < len(chunks); k += workers {
				chunks[k] = analyzeChunk(&c, batch, k, nil)
			}
		})
	}
	wg.Wait()
	return func(i int) ([]string, []int32, int32) { return chunks[i/aheadChunk].note(i % aheadChunk) }
}

// progressStep is how many notes a staged write stores between two
// progress reports.
const progressStep = 1024

// aheadChunk notes are analysed together by a worker of analyzeAhead, at
// most aheadChunks chunks ahead of what the write has reported passing.
const (
	aheadChunk  = 256
	aheadChunks = 16
)

// The chunk the write waits for lies less than progressStep/aheadChunk
// chunks past its last report; a narrower window would stop the workers
// short of it for good. This constant does not compile if it is narrower.
const _ = uint(aheadChunks - progressStep/aheadChunk)

// aheadAnalysis is the keyword analysis of a batch, computed by workers
// while the write goes through the batch in order.
type aheadAnalysis struct {
	batch   []core.Note
	results []*kwTerms      // by chunk; dropped once the write is past it
	ready   []chan struct{} // by chunk: closed when its result is set

	mu      sync.Mutex
	moved   *sync.Cond // the write passed notes, or stop was called
	next    int        // the next chunk a worker takes
	passedN int        // notes the write has passed
	stopped bool
}

// spareTerms holds the analyses writes are done with (reset), for the
// next chunk's: a first sync streams its notes in many staged writes of a
// few chunks each, and a spare kept by each write was reused by few of
// its chunks (105 MB of a 100k sync's garbage).
var spareTerms sync.Pool

// analyzeAhead starts analysing batch on all CPUs but one (the write's),
// chunk by chunk in order, at most aheadChunks chunks ahead of what the
// write has passed, so that the analyses of 100k notes are not all alive
// at once. A chunk the write has passed already is not analysed. The
// caller takes the analyses in order with terms, reports the write's
// progress with passed and must call stop.
func analyzeAhead(batch []core.Note) *aheadAnalysis {
	chunks := (len(batch) + aheadChunk - 1) / aheadChunk
	a := &aheadAnalysis{batch: batch, results: make([]*kwTerms, chunks), ready: make([]chan struct{}, chunks)}
	for c := range a.ready {
		a.ready[c] = make(chan struct{})
	}
	a.moved = sync.NewCond(&a.mu)
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		go func() {
			var counter kwCounter
			for {
				c, skip, ok := a.take(chunks)
				if !ok {
					return
				}
				if !skip {
					out, _ := spareTerms.Get().(*kwTerms)
					a.results[c] = analyzeChunk(&counter, batch, c, out)
				}
				close(a.ready[c])
			}
		}()
	}
	return a
}

// terms is the analysis of note i, waiting for it; the notes are taken in
// order, and a chunk's analysis is let go of once the next is taken.
func (a *aheadAnalysis) terms(i int) ([]string, []int32, int32) {
	c := i / aheadChunk
	<-a.ready[c]
	if c > 0 && a.results[c-1] != nil {
		done := a.results[c-1]
		a.results[c-1] = nil
		done.reset()
		spareTerms.Put(done)
	}
	if a.results[c] == nil { // skipped: the write was past it (never, taken in order)
		var counter kwCounter
		a.results[c] = analyzeChunk(&counter, a.batch, c, nil)
	}
	return a.results[c].note(i % aheadChunk)
}

// take gives a worker the next chunk, waiting while it is too far ahead of
// the write; skip says the write has passed it already. ok is false when
// there is nothing more to do.
func (a *aheadAnalysis) take(chunks int) (c int, skip, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The write, inside chunk c, has reported at least the notes before
	// the progressStep it is in, so the chunk it waits for is always in
	// the window.
	for !a.stopped && a.next < chunks && a.next >= a.passedN/aheadChunk+aheadChunks {
		a.moved.Wait()
	}
	if a.stopped || a.next >= chunks {
		return 0, false, false
	}
	c = a.next
	a.next++
	return c, c < a.passedN/aheadChunk, true
}

// passed tells the workers that the write has stored n more notes.
func (a *aheadAnalysis) passed(n int) {
	a.mu.Lock()
	a.passedN += n
	a.mu.Unlock()
	a.moved.Broadcast()
}

// stop makes the workers quit once they finish their chunk.
func (a *aheadAnalysis) stop() {
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	a.moved.Broadcast()
}

// noteWritten updates the index for a note just stored, with the
// analysis of its keyword text.
func (x *searchIndex) noteWritten(nd *node, terms []string, counts []int32, length int32) {
	// Always analysed: a stored note keeps its content on disk only, so
	// there is nothing in memory to tell an unchanged text by.
	x.keywords.putTerms(nd.ID, terms, counts, length)
	if _, ok := x.record(nd); ok {
		return
	}
	if sv, ok := x.parked[nd.ID]; ok {
		delete(x.parked, nd.ID)
		x.set(nd, sv.Model, sv.Hash, decodeVector(sv.Vector))
	}
}

// noteDeleted forgets a deleted note (its vector record on disk goes in
// the deletion's transaction: see Store.persist).
func (x *searchIndex) noteDeleted(nd *node) {
	x.keywords.remove(nd.ID)
	x.unset(nd)
	delete(x.parked, nd.ID)
}

// set records a normalised vector (nil: nothing to embed) for nd.
func (x *searchIndex) set(nd *node, model, hash string, vec []float32) {
	x.unset(nd)
	if hash == nd.Hash {
		hash = nd.Hash // the node's string, not a copy of it
	} else {
		hash = strings.Clone(hash) // it may be a window into a load's buffer
	}
	model = x.model(model)
	if n := int(nd.slot) + 1; n > len(x.records) {
		x.records = slices.Grow(x.records, n-len(x.records))[:n]
	}
	x.records[nd.slot] = vectorRecord{model: model, hash: hash, set: true}
	if len(vec) == 0 {
		return
	}
	s := x.slabs[model]
	if s == nil || s.Dim() != len(vec) {
		// A model's dimension never changes; a different one means the old
		// rows are useless, so they go (their notes embed again).
		if s != nil {
			for slot, rec := range x.records {
				if rec.set && rec.model == model && slot != int(nd.slot) {
					x.records[slot] = vectorRecord{}
				}
			}
		}
		s = flat.NewInt8(len(vec))
		s.Reserve(x.rowsHint)
		x.slabs[model] = s
	}
	s.Set(int(nd.slot), vec)
}

// unset removes nd's vector.
func (x *searchIndex) unset(nd *node) {
	rec, ok := x.record(nd)
	if !ok {
		return
	}
	x.records[nd.slot] = vectorRecord{}
	s := x.slabs[rec.model]
	if s == nil {
		return
	}
	s.Clear(int(nd.slot))
	if s.Len() == 0 {
		delete(x.slabs, rec.model)
	}
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

// VectorSearch scans every vector of model exactly and returns the limit
// with the highest cosine similarity to vector.
func (s *Store) VectorSearch(ctx context.Context, project, model string, vector []float32, limit int) ([]core.ScoredID, error) {
	if err := s.awaitLoaded(ctx, project, true); err != nil {
		return nil, fmt.Errorf("memstore: vector search: %w", err)
	}
	g, unlock, err := s.reader(ctx, "vector search", project)
	defer unlock()
	if err != nil || g == nil || limit <= 0 {
		return nil, err
	}
	q := flat.Normalize(vector)
	sl := g.search.slabs[model]
	if q == nil || sl == nil {
		return nil, nil
	}
	hits, err := s.rescore(project, g, model, q, sl.TopK(q, rescoreCandidates(limit)), limit)
	if err != nil {
		return nil, fmt.Errorf("memstore: vector search: %w", err)
	}
	return hits, nil
}

// rescoreCandidates is how many int8 candidates a search of limit hits
// rescores exactly: enough that an exact top hit missing from them is
// rare (see docs/ARCHITECTURE.md for the recall measured), few enough
// that reading their vectors from disk stays a small part of a search.
func rescoreCandidates(limit int) int { return max(4*limit, limit+rescoreExtra) }

// rescoreExtra is the least number of candidates beyond limit.
const rescoreExtra = 100

// rescore reads the exact vectors of the int8 candidates cands from disk
// and returns the best limit by their exact cosine with q, best first,
// ties by ID, scores clamped to [0, 1] (as flat.Index.TopK). A candidate
// whose stored vector is of another model now (re-embedded meanwhile) is
// left out. The caller holds g.mu for reading.
func (s *Store) rescore(project string, g *graph, model string, q []float32, cands []flat.RowScore, limit int) ([]core.ScoredID, error) {
	out := make([]core.ScoredID, 0, len(cands))
	bucket := vectorBucketPrefix + project
	var c vectorChunk // one record at a time
	err := s.kv.View(func(tx *kv.Tx) error {
		get := tx.Lookup(bucket) // read with pread: maps none of the file (kv's walk.go)
		for _, cand := range cands {
			nd := g.bySlot(cand.Row)
			if nd == nil {
				continue
			}
			rec := get(nd.ID)
			if rec == nil {
				continue
			}
			c.reset()
			if err := c.add(nd.ID, rec); err != nil {
				return fmt.Errorf("decode vector of %s: %w", nd.ID, err)
			}
			_, m, _, vec := c.entry(0)
			if m != model || len(vec) != len(q) {
				continue
			}
			out = append(out, core.ScoredID{ID: nd.ID, Score: min(1, max(0, float64(flat.Dot(q, vec))))})
		}
		return nil
	})
	if err != nil {
		return nil, core.NewProviderError("read state", err)
	}
	slices.SortFunc(out, func(a, b core.ScoredID) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(limit, len(out))], nil
}

// KeywordSearch ranks the project's notes by BM25 over title and content
// (keyword.Index's normalised scores, from the compact kwIndex).
func (s *Store) KeywordSearch(ctx context.Context, project, query string, limit int) ([]core.ScoredID, error) {
	if err := s.awaitLoaded(ctx, project, false); err != nil {
		return nil, fmt.Errorf("memstore: keyword search: %w", err)
	}
	g, unlock, err := s.reader(ctx, "keyword search", project)
	defer unlock()
	if err != nil || g == nil || limit <= 0 {
		return nil, err
	}
	return g.search.keywords.search(query, limit), nil
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

// awaitLoaded waits until the project's vectors (vectors) or keyword
// index (!vectors) are loaded: a graph loaded from disk fills them in the
// background (loadSearch).
func (s *Store) awaitLoaded(ctx context.Context, project string, vectors bool) error {
	g, err := s.loadedGraph(project)
	if err != nil || g == nil {
		return err
	}
	g.startSearch()
	g.mu.RLock()
	ready := g.keywordsReady
	if vectors {
		ready = g.vectorsReady
	}
	g.mu.RUnlock()
	if err := loaded(ctx, ready); err != nil || vectors {
		return err
	}
	return s.postKeywords(project, g)
}
