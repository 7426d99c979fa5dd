package memstore

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/flat"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
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
	vectors  map[string]vectorRecord // note ID -> its vector's record
	slabs    map[string]*flat.Int8   // model -> its vectors, rows by node slot
	parked   map[string]storedVector // read from disk, note not synced yet
}

// vectorRecord says which model and content a note's vector came from
// (a note embedded with nothing to embed has a record but no row).
type vectorRecord struct {
	model, hash string
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
		vectors:  map[string]vectorRecord{},
		slabs:    map[string]*flat.Int8{},
		parked:   map[string]storedVector{},
	}
}

// analyzeNote is what keyword search sees of a note: its title and its
// content, as two parts (no joined copy of every note's content).
func analyzeNote(n *core.Note) keyword.Analysis { return keyword.Analyze(n.Title, n.Content) }

// parallelAnalysis is the batch size from which UpsertNotes analyses the
// notes' keyword text on every CPU before it takes the write lock: a first
// sync of 100k notes spent seconds tokenizing on one core.
const parallelAnalysis = 256

// analyzeNotes returns the keyword analysis of each note: computed now on
// every CPU for a large batch, else on demand.
func analyzeNotes(batch []core.Note) []func() keyword.Analysis {
	out := make([]func() keyword.Analysis, len(batch))
	if len(batch) < parallelAnalysis {
		for i := range batch {
			n := &batch[i]
			out[i] = func() keyword.Analysis { return analyzeNote(n) }
		}
		return out
	}
	results := make([]keyword.Analysis, len(batch))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(batch); i += workers {
				results[i] = analyzeNote(&batch[i])
			}
		}()
	}
	wg.Wait()
	for i := range results {
		out[i] = func() keyword.Analysis { return results[i] }
	}
	return out
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
	analyses []func() keyword.Analysis // analyses[i] waits for note i's

	mu      sync.Mutex
	moved   *sync.Cond // the write passed notes, or stop was called
	next    int        // the next chunk a worker takes
	passedN int        // notes the write has passed
	stopped bool
}

// analyzeAhead starts analysing batch on all CPUs but one (the write's),
// chunk by chunk in order, at most aheadChunks chunks ahead of what the
// write has passed, so that the analyses of 100k notes are not all alive
// at once. A chunk the write has passed without waiting for it (its notes'
// text unchanged) is not analysed. The caller reports the write's progress
// with passed and must call stop.
func analyzeAhead(batch []core.Note) *aheadAnalysis {
	chunks := (len(batch) + aheadChunk - 1) / aheadChunk
	results := make([]keyword.Analysis, len(batch))
	ready := make([]chan struct{}, chunks)
	for c := range ready {
		ready[c] = make(chan struct{})
	}
	a := &aheadAnalysis{analyses: make([]func() keyword.Analysis, len(batch))}
	a.moved = sync.NewCond(&a.mu)
	for i := range batch {
		a.analyses[i] = func() keyword.Analysis {
			<-ready[i/aheadChunk]
			r := results[i]
			results[i] = keyword.Analysis{} // the write's copy is the only one left
			return r
		}
	}
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		go func() {
			for {
				c, skip, ok := a.take(chunks)
				if !ok {
					return
				}
				if !skip {
					for i := c * aheadChunk; i < min((c+1)*aheadChunk, len(batch)); i++ {
						results[i] = analyzeNote(&batch[i])
					}
				}
				close(ready[c])
			}
		}()
	}
	return a
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

// noteWritten updates the index for a note just stored, a the analysis of
// its keyword text.
func (x *searchIndex) noteWritten(nd *node, a func() keyword.Analysis) {
	// Always analysed: a stored note keeps its content on disk only, so
	// there is nothing in memory to tell an unchanged text by.
	x.keywords.put(nd.ID, a())
	if _, ok := x.vectors[nd.ID]; ok {
		return
	}
	if sv, ok := x.parked[nd.ID]; ok {
		delete(x.parked, nd.ID)
		x.set(nd, sv.Model, sv.Hash, decodeVector(sv.Vector))
	}
}

// noteDeleted forgets a deleted note and reports whether it had a vector
// on disk.
func (x *searchIndex) noteDeleted(nd *node) bool {
	id := nd.ID
	x.keywords.remove(id)
	_, had := x.vectors[id]
	_, parked := x.parked[id]
	x.unset(nd)
	delete(x.parked, id)
	return had || parked
}

// deleteVectors removes the persisted vectors of ids.
func (s *Store) deleteVectors(project string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.kv.Update(func(tx *kv.Tx) error {
		for _, id := range ids {
			if _, err := tx.Delete(vectorBucketPrefix+project, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// set records a normalised vector (nil: nothing to embed) for nd.
func (x *searchIndex) set(nd *node, model, hash string, vec []float32) {
	x.unset(nd)
	x.vectors[nd.ID] = vectorRecord{model: model, hash: hash}
	if len(vec) == 0 {
		return
	}
	s := x.slabs[model]
	if s == nil || s.Dim() != len(vec) {
		// A model's dimension never changes; a different one means the old
		// rows are useless, so they go (their notes embed again).
		if s != nil {
			for id, rec := range x.vectors {
				if rec.model == model && id != nd.ID {
					delete(x.vectors, id)
				}
			}
		}
		s = flat.NewInt8(len(vec))
		x.slabs[model] = s
	}
	s.Set(int(nd.slot), vec)
}

// unset removes nd's vector.
func (x *searchIndex) unset(nd *node) {
	rec, ok := x.vectors[nd.ID]
	if !ok {
		return
	}
	delete(x.vectors, nd.ID)
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
func (s *Store) loadVectors(project string, g *graph) error {
	type entry struct {
		id string
		sv storedVector
	}
	const chunkSize = 2048
	errChunk := errors.New("chunk full")
	var chunk []entry
	for from, more := "", true; more; {
		chunk = chunk[:0]
		err := s.kv.View(func(tx *kv.Tx) error {
			return tx.ForEachFrom(vectorBucketPrefix+project, from, func(id string, value []byte) error {
				if len(chunk) == chunkSize {
					from = id
					return errChunk
				}
				var sv storedVector
				if err := json.Unmarshal(value, &sv); err != nil {
					return fmt.Errorf("decode vector of %s: %w", id, err)
				}
				chunk = append(chunk, entry{id, sv})
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
		g.mu.Lock()
		x := g.search
		for _, e := range chunk {
			if _, set := x.vectors[e.id]; set {
				continue // written since the load
			}
			if nd := g.notes[e.id]; nd != nil {
				x.set(nd, e.sv.Model, e.sv.Hash, decodeVector(e.sv.Vector))
			} else {
				x.parked[e.id] = e.sv
			}
		}
		g.mu.Unlock()
	}
	return nil
}

// StaleVectors lists the notes without a vector of model for their current
// content, by ID.
func (s *Store) StaleVectors(ctx context.Context, project, model string) ([]core.StaleNote, error) {
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
		rec, ok := g.search.vectors[nd.ID]
		if !ok || rec.model != model || rec.hash != nd.Hash {
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
	type entry struct {
		id, hash string
		vec      []float32
		stored   storedVector
	}
	entries := make([]entry, 0, len(vectors))
	g.mu.RLock()
	for _, v := range vectors {
		if g.notes[v.ID] == nil {
			continue
		}
		vec := flat.Normalize(v.Vector)
		entries = append(entries, entry{id: v.ID, hash: v.Hash, vec: vec,
			stored: storedVector{Model: model, Hash: v.Hash, Vector: encodeVector(vec)}})
	}
	g.mu.RUnlock()
	if len(entries) == 0 {
		return nil
	}
	bucket := vectorBucketPrefix + project
	err = s.kv.Update(func(tx *kv.Tx) error {
		for _, e := range entries {
			if err := tx.Put(bucket, e.id, e.stored); err != nil {
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
	for _, e := range entries {
		if nd := g.notes[e.id]; nd != nil { // not deleted meanwhile
			g.search.set(nd, model, e.hash, e.vec)
		}
	}
	return nil
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
	vec := make([]float32, len(q))
	err := s.kv.View(func(tx *kv.Tx) error {
		for _, c := range cands {
			nd := g.bySlot(c.Row)
			if nd == nil {
				continue
			}
			rec := tx.GetRaw(bucket, nd.ID)
			if rec == nil {
				continue
			}
			var sv storedVector
			if err := json.Unmarshal(rec, &sv); err != nil {
				return fmt.Errorf("decode vector of %s: %w", nd.ID, err)
			}
			if sv.Model != model || len(sv.Vector) != 4*len(q) {
				continue
			}
			for i := range vec {
				vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(sv.Vector[4*i:]))
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
	g, err := s.graph(project)
	if err != nil || g == nil {
		return err
	}
	g.mu.RLock()
	ready := g.keywordsReady
	if vectors {
		ready = g.vectorsReady
	}
	g.mu.RUnlock()
	return loaded(ctx, ready)
}
