package memstore

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/vaultgraph/vaultgraph/embedding/keyword"
	"github.com/vaultgraph/vaultgraph/memstore/internal/kv"
)

// bucketChunks holds document chunks under "project\x00chunkID". Chunks
// have no file to be rebuilt from, so they are durable (fsynced with every
// write) and loaded into memory on first use; searches are an exact
// cosine scan over the project's chunks in memory.
const bucketChunks = "chunks"

// chunkIndex is the in-memory copy of the chunk bucket. mu is held for
// writing across a write's kv transaction, so memory and disk never
// disagree as seen by a reader.
type chunkIndex struct {
	mu        sync.RWMutex
	loaded    bool
	byProject map[string]map[string]*core.Chunk
	keywords  map[string]*keyword.Index // per project: BM25 over header path and content
}

// keywordText is what the keyword index holds of a chunk.
func keywordText(c *core.Chunk) string { return c.HeaderPath + "\n" + c.Content }

// keywordIndex returns the project's keyword index, creating it; the
// caller holds mu for writing.
func (ix *chunkIndex) keywordIndex(project string) *keyword.Index {
	k := ix.keywords[project]
	if k == nil {
		k = keyword.NewIndex()
		ix.keywords[project] = k
	}
	return k
}

// chunkRecord is a chunk as stored: the vector as little-endian float32
// bytes (base64 in JSON), a quarter of the size of a JSON number list.
type chunkRecord struct {
	ID         string    `json:"id"`
	SourceFile string    `json:"source_file"`
	Namespace  string    `json:"namespace"`
	DocType    string    `json:"doc_type"`
	Index      int       `json:"index"`
	Content    string    `json:"content"`
	HeaderPath string    `json:"header_path,omitempty"`
	Page       int       `json:"page,omitempty"`
	FileHash   string    `json:"file_hash"`
	NoteID     string    `json:"note_id,omitempty"`
	Model      string    `json:"model"`
	Vector     []byte    `json:"vector"`
	IndexedAt  time.Time `json:"indexed_at"`
}

func chunkKey(project, id string) string { return project + "\x00" + id }

func toRecord(c *core.Chunk) chunkRecord {
	v := make([]byte, 4*len(c.Vector))
	for i, f := range c.Vector {
		binary.LittleEndian.PutUint32(v[4*i:], math.Float32bits(f))
	}
	return chunkRecord{
		ID: c.ID, SourceFile: c.SourceFile, Namespace: c.Namespace, DocType: c.DocType,
		Index: c.Index, Content: c.Content, HeaderPath: c.HeaderPath, Page: c.Page,
		FileHash: c.FileHash, NoteID: c.NoteID, Model: c.Model, Vector: v, IndexedAt: c.IndexedAt,
	}
}

func (r *chunkRecord) chunk() *core.Chunk {
	vec := make([]float32, len(r.Vector)/4)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.Vector[4*i:]))
	}
	return &core.Chunk{
		ID: r.ID, SourceFile: r.SourceFile, Namespace: r.Namespace, DocType: r.DocType,
		Index: r.Index, Content: r.Content, HeaderPath: r.HeaderPath, Page: r.Page,
		FileHash: r.FileHash, NoteID: r.NoteID, Model: r.Model, Vector: vec, IndexedAt: r.IndexedAt,
	}
}

// chunkProject splits a bucket key.
func chunkProject(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == 0 {
			return key[:i]
		}
	}
	return key
}

// loadChunks fills the index from disk once; the caller holds mu for
// writing.
func (s *Store) loadChunks() error {
	ix := &s.chunks
	if ix.loaded {
		return nil
	}
	ix.byProject = map[string]map[string]*core.Chunk{}
	ix.keywords = map[string]*keyword.Index{}
	err := s.kv.View(func(tx *kv.Tx) error {
		return tx.ForEach(bucketChunks, func(key string, value []byte) error {
			var r chunkRecord
			if err := json.Unmarshal(value, &r); err != nil {
				return fmt.Errorf("decode chunk %q: %w", key, err)
			}
			p := chunkProject(key)
			if ix.byProject[p] == nil {
				ix.byProject[p] = map[string]*core.Chunk{}
			}
			c := r.chunk()
			ix.byProject[p][r.ID] = c
			ix.keywordIndex(p).Put(c.ID, keywordText(c))
			return nil
		})
	})
	if err != nil {
		return core.NewProviderError("memstore: load chunks", err)
	}
	ix.loaded = true
	return nil
}

// readChunks runs fn with the project's chunks under the read lock.
func (s *Store) readChunks(ctx context.Context, op, project string, fn func(chunks map[string]*core.Chunk) error) error {
	if err := s.check(ctx); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	s.chunks.mu.RLock()
	if !s.chunks.loaded {
		s.chunks.mu.RUnlock()
		s.chunks.mu.Lock()
		err := s.loadChunks()
		s.chunks.mu.Unlock()
		if err != nil {
			return fmt.Errorf("memstore: %s: %w", op, err)
		}
		s.chunks.mu.RLock()
	}
	defer s.chunks.mu.RUnlock()
	return fn(s.chunks.byProject[project])
}

// writeChunks runs change under the write lock: change computes the new
// state of the project's chunks (put: new or replaced, del: removed IDs)
// from the current one, then both are written to disk in one transaction
// and, once committed, to memory.
func (s *Store) writeChunks(ctx context.Context, op, project string, change func(cur map[string]*core.Chunk) (put []*core.Chunk, del []string, err error)) error {
	if err := s.check(ctx); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	s.chunks.mu.Lock()
	defer s.chunks.mu.Unlock()
	if err := s.loadChunks(); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	cur := s.chunks.byProject[project]
	put, del, err := change(cur)
	if err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	if len(put) == 0 && len(del) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memstore: %s: %w", op, err)
	}
	err = s.kv.Update(func(tx *kv.Tx) error {
		for _, id := range del {
			if _, err := tx.Delete(bucketChunks, chunkKey(project, id)); err != nil {
				return err
			}
		}
		for _, c := range put {
			if err := tx.Put(bucketChunks, chunkKey(project, c.ID), toRecord(c)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("memstore: %s: %w", op, core.NewProviderError("write state", err))
	}
	if cur == nil {
		cur = map[string]*core.Chunk{}
		s.chunks.byProject[project] = cur
	}
	kw := s.chunks.keywordIndex(project)
	for _, id := range del {
		delete(cur, id)
		kw.Delete(id)
	}
	for _, c := range put {
		if old := cur[c.ID]; old == nil || keywordText(old) != keywordText(c) {
			kw.Put(c.ID, keywordText(c))
		}
		cur[c.ID] = c
	}
	return nil
}

// ReplaceFileChunks implements core.ChunkStore.
func (s *Store) ReplaceFileChunks(ctx context.Context, project, sourceFile string, chunks []core.Chunk) (int, error) {
	removed := 0
	err := s.writeChunks(ctx, "replace chunks of "+sourceFile, project, func(cur map[string]*core.Chunk) ([]*core.Chunk, []string, error) {
		put := make([]*core.Chunk, 0, len(chunks))
		seen := make(map[string]bool, len(chunks))
		for i := range chunks {
			c := chunks[i]
			if c.SourceFile != sourceFile {
				return nil, nil, core.InvalidArgument("chunk %s has source file %q, want %q", c.ID, c.SourceFile, sourceFile)
			}
			if c.ID == "" || seen[c.ID] {
				return nil, nil, core.InvalidArgument("chunk id %q is empty or repeated", c.ID)
			}
			seen[c.ID] = true
			c.Vector = slices.Clone(c.Vector)
			put = append(put, &c)
		}
		var del []string
		for id, c := range cur {
			if c.SourceFile == sourceFile {
				removed++
				if !seen[id] {
					del = append(del, id)
				}
			} else if seen[id] {
				return nil, nil, core.InvalidArgument("chunk id %s belongs to another file", id)
			}
		}
		return put, del, nil
	})
	if err != nil {
		return 0, err
	}
	return removed, nil
}

// ChunkFile implements core.ChunkStore.
func (s *Store) ChunkFile(ctx context.Context, project, sourceFile string) (*core.ChunkFile, error) {
	var out *core.ChunkFile
	err := s.readChunks(ctx, "chunk file", project, func(chunks map[string]*core.Chunk) error {
		var mine []*core.Chunk
		for _, c := range chunks {
			if c.SourceFile == sourceFile {
				mine = append(mine, c)
			}
		}
		if len(mine) == 0 {
			return nil
		}
		slices.SortFunc(mine, func(a, b *core.Chunk) int {
			return cmp.Or(cmp.Compare(a.Index, b.Index), cmp.Compare(a.ID, b.ID))
		})
		out = &core.ChunkFile{SourceFile: sourceFile, FileHash: mine[0].FileHash, Namespace: mine[0].Namespace}
		for _, c := range mine {
			out.IDs = append(out.IDs, c.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("memstore: chunk file %s: %w", sourceFile, core.ErrNotFound)
	}
	return out, nil
}

// SearchChunks implements core.ChunkStore with an exact scan: scores go
// into a slice of pointers, and only the top q.Limit are copied out.
func (s *Store) SearchChunks(ctx context.Context, project string, q core.ChunkQuery) ([]core.ScoredChunk, error) {
	type scored struct {
		c     *core.Chunk
		score float64
	}
	better := func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.c.ID, b.c.ID)
	}
	var hits []core.ScoredChunk
	err := s.readChunks(ctx, "search chunks", project, func(chunks map[string]*core.Chunk) error {
		all := make([]scored, 0, len(chunks))
		for _, c := range chunks {
			if c.Model != q.Model || len(c.Vector) != len(q.Vector) || !matches(c, q.Filter) {
				continue
			}
			all = append(all, scored{c, cosine01(c.Vector, q.Vector)})
		}
		slices.SortFunc(all, better)
		if q.Limit > 0 && len(all) > q.Limit {
			all = all[:q.Limit]
		}
		hits = make([]core.ScoredChunk, len(all))
		for i, a := range all {
			hits[i] = core.ScoredChunk{Chunk: *a.c, Score: a.score}
			hits[i].Vector = nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// KeywordSearchChunks implements core.ChunkStore with the project's BM25
// index (embedding/keyword): every matching chunk is scored, filtered,
// and the best q.Limit returned.
func (s *Store) KeywordSearchChunks(ctx context.Context, project string, q core.ChunkKeywordQuery) ([]core.ScoredChunk, error) {
	var hits []core.ScoredChunk
	err := s.readChunks(ctx, "keyword search chunks", project, func(chunks map[string]*core.Chunk) error {
		kw := s.chunks.keywords[project]
		if kw == nil || len(chunks) == 0 {
			return nil
		}
		n := len(chunks)
		if q.Filter == (core.ChunkFilter{}) && q.Limit > 0 {
			n = q.Limit // nothing to filter out: the index's top is the answer
		}
		for _, h := range kw.Search(q.Text, n) {
			c := chunks[h.ID]
			if c == nil || !matches(c, q.Filter) {
				continue
			}
			hit := core.ScoredChunk{Chunk: *c, Score: h.Score}
			hit.Vector = nil
			hits = append(hits, hit)
			if q.Limit > 0 && len(hits) == q.Limit {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return hits, nil
}

func matches(c *core.Chunk, f core.ChunkFilter) bool {
	return (f.Namespace == "" || c.Namespace == f.Namespace) &&
		(f.DocType == "" || c.DocType == f.DocType) &&
		(f.SourceFile == "" || c.SourceFile == f.SourceFile)
}

// cosine01 is the dot product of two normalised vectors clamped to [0, 1].
func cosine01(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return min(max(dot, 0), 1)
}

// DeleteChunks implements core.ChunkStore.
func (s *Store) DeleteChunks(ctx context.Context, project string, ids []string) ([]string, error) {
	var deleted []string
	err := s.writeChunks(ctx, "delete chunks", project, func(cur map[string]*core.Chunk) ([]*core.Chunk, []string, error) {
		seen := map[string]bool{}
		for _, id := range ids {
			if cur[id] != nil && !seen[id] {
				seen[id] = true
				deleted = append(deleted, id)
			}
		}
		return nil, deleted, nil
	})
	if err != nil {
		return nil, err
	}
	return deleted, nil
}

// DeleteFileChunks implements core.ChunkStore.
func (s *Store) DeleteFileChunks(ctx context.Context, project, sourceFile string) (int, error) {
	n := 0
	err := s.writeChunks(ctx, "delete chunks of "+sourceFile, project, func(cur map[string]*core.Chunk) ([]*core.Chunk, []string, error) {
		var del []string
		for id, c := range cur {
			if c.SourceFile == sourceFile {
				del = append(del, id)
			}
		}
		n = len(del)
		return nil, del, nil
	})
	return n, err
}

// ClearChunks implements core.ChunkStore.
func (s *Store) ClearChunks(ctx context.Context, project string) (int, error) {
	n := 0
	err := s.writeChunks(ctx, "clear chunks", project, func(cur map[string]*core.Chunk) ([]*core.Chunk, []string, error) {
		del := make([]string, 0, len(cur))
		for id := range cur {
			del = append(del, id)
		}
		n = len(del)
		return nil, del, nil
	})
	return n, err
}

// ChunkStats implements core.ChunkStore.
func (s *Store) ChunkStats(ctx context.Context, project string) (core.ChunkStats, error) {
	var st core.ChunkStats
	err := s.readChunks(ctx, "chunk stats", project, func(chunks map[string]*core.Chunk) error {
		sources, namespaces := map[string]bool{}, map[string]bool{}
		for _, c := range chunks {
			sources[c.SourceFile] = true
			namespaces[c.Namespace] = true
		}
		st.Chunks = len(chunks)
		st.Sources = sortedKeys(sources)
		st.Namespaces = sortedKeys(namespaces)
		return nil
	})
	return st, err
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// StaleChunks implements core.ChunkStore.
func (s *Store) StaleChunks(ctx context.Context, project, model string, limit int) ([]core.Chunk, error) {
	var out []core.Chunk
	err := s.readChunks(ctx, "stale chunks", project, func(chunks map[string]*core.Chunk) error {
		for _, c := range chunks {
			if c.Model != model {
				cc := *c
				cc.Vector = nil
				out = append(out, cc)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b core.Chunk) int { return cmp.Compare(a.ID, b.ID) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// SetChunkVectors implements core.ChunkStore.
func (s *Store) SetChunkVectors(ctx context.Context, project, model string, vectors map[string][]float32) error {
	return s.writeChunks(ctx, "set chunk vectors", project, func(cur map[string]*core.Chunk) ([]*core.Chunk, []string, error) {
		var put []*core.Chunk
		for id, v := range vectors {
			c := cur[id]
			if c == nil {
				continue
			}
			cc := *c
			cc.Model, cc.Vector = model, slices.Clone(v)
			put = append(put, &cc)
		}
		return put, nil, nil
	})
}
