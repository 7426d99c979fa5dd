package memstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/vaultgraph/vaultgraph/core"
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
// Search is exact: a scan of every row of the model, kept in one contiguous
// []float32 per model (cache friendly, no pointer chasing), normalised on
// the way in so a dot product is the cosine. Large scans are split across
// the CPUs. Keyword relevance is embedding/keyword's BM25 over title and
// content, kept current on every write.

// vectorBucketPrefix + project names the kv bucket of a project's vectors.
const vectorBucketPrefix = "note_vectors:"

// parallelScanRows is the row count from which a vector scan is split
// across goroutines; below it the split costs more than it saves.
const parallelScanRows = 16384

// searchIndex is the search state of one project's graph, guarded by the
// graph's mutex.
type searchIndex struct {
	keywords *keyword.Index
	vectors  map[string]vectorRecord // note ID -> its vector's record
	slabs    map[string]*slab        // model -> rows
	parked   map[string]storedVector // read from disk, note not synced yet
}

// vectorRecord says which model and content a note's vector came from and
// where its row is (-1: embedded, but nothing to embed).
type vectorRecord struct {
	model, hash string
	row         int
}

// slab holds the normalised vectors of one model, row after row.
type slab struct {
	dim  int
	ids  []string
	data []float32
}

// storedVector is a vector as persisted.
type storedVector struct {
	Model  string `json:"m"`
	Hash   string `json:"h"`
	Vector []byte `json:"v,omitempty"` // little-endian float32s, normalised
}

func newSearchIndex() *searchIndex {
	return &searchIndex{
		keywords: keyword.NewIndex(),
		vectors:  map[string]vectorRecord{},
		slabs:    map[string]*slab{},
		parked:   map[string]storedVector{},
	}
}

// keywordText is what keyword search sees of a note.
func noteKeywordText(n *core.Note) string { return n.Title + "\n" + n.Content }

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
			out[i] = func() keyword.Analysis { return keyword.Analyze(noteKeywordText(n)) }
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
				results[i] = keyword.Analyze(noteKeywordText(&batch[i]))
			}
		}()
	}
	wg.Wait()
	for i := range results {
		out[i] = func() keyword.Analysis { return results[i] }
	}
	return out
}

// noteWritten updates the index for a note just stored; old is the note it
// replaced (nil for a new one), a the analysis of its keyword text.
func (x *searchIndex) noteWritten(old, n *core.Note, a func() keyword.Analysis) {
	if old == nil || old.Title != n.Title || old.Content != n.Content {
		x.keywords.PutAnalyzed(n.ID, a())
	}
	if _, ok := x.vectors[n.ID]; ok {
		return
	}
	if sv, ok := x.parked[n.ID]; ok {
		delete(x.parked, n.ID)
		x.set(n.ID, sv.Model, sv.Hash, decodeVector(sv.Vector))
	}
}

// noteDeleted forgets a deleted note and reports whether it had a vector
// on disk.
func (x *searchIndex) noteDeleted(id string) bool {
	x.keywords.Delete(id)
	_, had := x.vectors[id]
	_, parked := x.parked[id]
	x.unset(id)
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

// set records a normalised vector (nil: nothing to embed) for id.
func (x *searchIndex) set(id, model, hash string, vec []float32) {
	x.unset(id)
	rec := vectorRecord{model: model, hash: hash, row: -1}
	if len(vec) > 0 {
		s := x.slabs[model]
		if s == nil || s.dim != len(vec) {
			// A model's dimension never changes; a different one means the
			// old rows are useless, so they go.
			if s != nil {
				for _, old := range s.ids {
					r := x.vectors[old]
					r.row = -1
					x.vectors[old] = r
				}
			}
			s = &slab{dim: len(vec)}
			x.slabs[model] = s
		}
		rec.row = len(s.ids)
		s.ids = append(s.ids, id)
		s.data = append(s.data, vec...)
	}
	x.vectors[id] = rec
}

// unset removes id's vector, moving the slab's last row into its place.
func (x *searchIndex) unset(id string) {
	rec, ok := x.vectors[id]
	if !ok {
		return
	}
	delete(x.vectors, id)
	s := x.slabs[rec.model]
	if rec.row < 0 || s == nil {
		return
	}
	last := len(s.ids) - 1
	if rec.row != last {
		moved := s.ids[last]
		s.ids[rec.row] = moved
		copy(s.data[rec.row*s.dim:(rec.row+1)*s.dim], s.data[last*s.dim:])
		r := x.vectors[moved]
		r.row = rec.row
		x.vectors[moved] = r
	}
	s.ids = s.ids[:last]
	s.data = s.data[:last*s.dim]
	if last == 0 {
		delete(x.slabs, rec.model)
	}
}

// loadVectors reads the project's persisted vectors into parked; called
// once, when the project's graph is created.
func (s *Store) loadVectors(project string, x *searchIndex) error {
	return s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEach(vectorBucketPrefix+project, func(key string, value []byte) error {
			var sv storedVector
			if err := json.Unmarshal(value, &sv); err != nil {
				return fmt.Errorf("decode vector of %s: %w", key, err)
			}
			x.parked[key] = sv
			return nil
		})
	})
}

// StaleVectors lists the notes without a vector of model for their current
// content, by ID.
func (s *Store) StaleVectors(ctx context.Context, project, model string) ([]core.StaleNote, error) {
	g, unlock, err := s.reader(ctx, "stale vectors", project)
	defer unlock()
	if err != nil || g == nil {
		return nil, err
	}
	var out []core.StaleNote
	for _, nd := range g.all {
		rec, ok := g.search.vectors[nd.id()]
		if !ok || rec.model != model || rec.hash != nd.note.Hash {
			out = append(out, core.StaleNote{ID: nd.id(), Hash: nd.note.Hash})
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
	g := s.graph(project)
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
		vec := normalized(v.Vector)
		entries = append(entries, entry{id: v.ID, hash: v.Hash, vec: vec,
			stored: storedVector{Model: model, Hash: v.Hash, Vector: encodeVector(vec)}})
	}
	g.mu.RUnlock()
	if len(entries) == 0 {
		return nil
	}
	bucket := vectorBucketPrefix + project
	err := s.kv.Update(func(tx *kv.Tx) error {
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
		if g.notes[e.id] != nil { // not deleted meanwhile
			g.search.set(e.id, model, e.hash, e.vec)
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
	g, unlock, err := s.reader(ctx, "vector search", project)
	defer unlock()
	if err != nil || g == nil || limit <= 0 {
		return nil, err
	}
	q := normalized(vector)
	sl := g.search.slabs[model]
	if q == nil || sl == nil || sl.dim != len(q) {
		return nil, nil
	}
	return sl.topK(q, limit), nil
}

// topK returns the k rows with the highest dot product with q, best first,
// ties by ID, scores clamped to [0, 1].
func (sl *slab) topK(q []float32, k int) []core.ScoredID {
	n := len(sl.ids)
	parts := 1
	if n >= parallelScanRows {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	heaps := make([]topHeap, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() { heaps[p] = sl.scan(q, k, lo, hi) })
	}
	wg.Wait()
	all := heaps[0]
	for _, h := range heaps[1:] {
		for _, c := range h.items {
			all.offer(c, k)
		}
	}
	out := make([]core.ScoredID, len(all.items))
	slices.SortFunc(all.items, func(a, b candidate) int { return -compareCandidates(a, b, sl.ids) })
	for i, c := range all.items {
		out[i] = core.ScoredID{ID: sl.ids[c.row], Score: min(1, max(0, float64(c.score)))}
	}
	return out
}

// scan scores rows lo..hi-1 into a heap of the best k.
func (sl *slab) scan(q []float32, k, lo, hi int) topHeap {
	h := topHeap{ids: sl.ids}
	dim := sl.dim
	for r := lo; r < hi; r++ {
		score := dot(q, sl.data[r*dim:(r+1)*dim])
		if len(h.items) == k && score < h.items[0].score {
			continue // cheap reject before the full comparison
		}
		h.offer(candidate{row: r, score: score}, k)
	}
	return h
}

// dot is the dot product of two vectors of equal length, unrolled by four
// (the compiler keeps the four sums in registers).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

type candidate struct {
	row   int
	score float32
}

// compareCandidates orders by score, then by ID descending, so that the
// greatest candidate is the best (ties go to the smaller ID).
func compareCandidates(a, b candidate, ids []string) int {
	switch {
	case a.score < b.score:
		return -1
	case a.score > b.score:
		return 1
	}
	return strings.Compare(ids[b.row], ids[a.row])
}

// topHeap is a min-heap of the best candidates seen: its root is the worst
// of them, the one to replace.
type topHeap struct {
	ids   []string
	items []candidate
}

func (h *topHeap) less(i, j int) bool { return compareCandidates(h.items[i], h.items[j], h.ids) < 0 }

func (h *topHeap) offer(c candidate, k int) {
	if len(h.items) < k {
		h.items = append(h.items, c)
		for i := len(h.items) - 1; i > 0; {
			p := (i - 1) / 2
			if !h.less(i, p) {
				break
			}
			h.items[i], h.items[p] = h.items[p], h.items[i]
			i = p
		}
		return
	}
	if compareCandidates(c, h.items[0], h.ids) <= 0 {
		return
	}
	h.items[0] = c
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.items) && h.less(l, m) {
			m = l
		}
		if r < len(h.items) && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

// KeywordSearch ranks the project's notes by BM25 over title and content
// (keyword.Index's normalised scores).
func (s *Store) KeywordSearch(ctx context.Context, project, query string, limit int) ([]core.ScoredID, error) {
	g, unlock, err := s.reader(ctx, "keyword search", project)
	defer unlock()
	if err != nil || g == nil || limit <= 0 {
		return nil, err
	}
	return g.search.keywords.Search(query, limit), nil
}

// normalized returns v scaled to unit length, or nil for an empty or zero
// vector (or one holding NaN or infinity).
func normalized(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil
	}
	inv := 1 / math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
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
