package neo4jstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/core"
)

// Document chunks (spec 004) are (:Chunk {project, id, ...}) nodes, unique
// on (project, id), with their embedding in c.embedding and the model that
// made it in c.model. A chunk of a vault note has
// (:Chunk)-[:PART_OF]->(:Note) to it. Searches are an exact cosine scan
// over the project's chunks of the query's model (see chunk_search): the
// filters of search_with_filters apply before ranking, so a filtered
// search never comes back short, and chunks of two models are never
// compared.
var (
	stmtSchemaChunkKey    = stmt("schema_chunk_key")
	stmtSchemaChunkSource = stmt("schema_chunk_source")
	stmtSchemaChunkModel  = stmt("schema_chunk_model")
	stmtChunkCreate       = stmt("chunk_create")
	stmtChunkDeleteFile   = stmt("chunk_delete_file")
	stmtChunkFile         = stmt("chunk_file")
	stmtChunkSearch       = stmt("chunk_search")
	stmtChunkDeleteIDs    = stmt("chunk_delete_ids")
	stmtChunkClear        = stmt("chunk_clear")
	stmtChunkStats        = stmt("chunk_stats")
	stmtChunkStale        = stmt("chunk_stale")
	stmtChunkSetVectors   = stmt("chunk_set_vectors")

	stmtSchemaChunkEmbedding = stmt("schema_chunk_embedding")
	stmtChunkIndexDimension  = stmt("chunk_index_dimension")
	stmtChunkSearchIndexed   = stmt("chunk_search_indexed")

	stmtSchemaChunkFulltext = stmt("schema_chunk_fulltext")
	stmtChunkSearchKeyword  = stmt("chunk_search_keyword")
)

// chunkFulltextMigration creates the chunk fulltext index (version 11).
var chunkFulltextMigration = migration{11, "fulltext index on chunk content", []statement{stmtSchemaChunkFulltext}}

// chunkVectorIndex remembers the dimension of the chunk_embedding index:
// 0 until known. It is created with the length of the first vectors
// written and kept afterwards (a model of another dimension is searched
// exactly; drop the index by hand to rebuild it for the new one).
type chunkVectorIndex struct {
	mu  sync.Mutex
	dim int
}

// Over-fetch of an indexed search: the index is shared by every project
// and model, so it is asked for more than the limit and its answer
// filtered; a filtered answer that comes back short is redone exactly.
const (
	indexOverFetch = 10
	indexMinK      = 100
	indexMaxK      = 10000
)

// chunkIndexDim returns the index's dimension, asking the database while
// it is not known (the index may have been made by another process).
func (s *Neo4jStore) chunkIndexDim(ctx context.Context) int {
	s.chunkIndex.mu.Lock()
	defer s.chunkIndex.mu.Unlock()
	if s.chunkIndex.dim > 0 {
		return s.chunkIndex.dim
	}
	_ = s.read(ctx, "chunk index dimension", func(t txn) error {
		r, err := t.single(stmtChunkIndexDimension, nil)
		if err != nil || r == nil {
			return err
		}
		s.chunkIndex.dim = int(num(r.Values[0]))
		return nil
	})
	return s.chunkIndex.dim
}

// ensureChunkIndex creates the vector index for vectors of length dim
// when there is none yet, and waits until it is online.
func (s *Neo4jStore) ensureChunkIndex(ctx context.Context, dim int) {
	if dim == 0 || s.chunkIndexDim(ctx) != 0 {
		return
	}
	err := s.write(ctx, "create chunk vector index", func(t txn) error {
		_, err := t.collect(stmtSchemaChunkEmbedding, map[string]any{"dimensions": int64(dim)})
		return err
	})
	if err == nil {
		err = s.awaitIndexes(ctx)
	}
	if err != nil {
		// Searches scan exactly until a later write manages it.
		s.log.Warn("chunk vector index not created; searches scan exactly", "err", err)
		return
	}
	s.chunkIndexDim(ctx)
}

// chunkMigration creates the chunk schema (migration version 10).
var chunkMigration = migration{10, "document chunk key and indexes", []statement{
	stmtSchemaChunkKey, stmtSchemaChunkSource, stmtSchemaChunkModel,
}}

func floats64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(f)
	}
	return out
}

// ReplaceFileChunks implements core.ChunkStore in one transaction.
func (s *Neo4jStore) ReplaceFileChunks(ctx context.Context, project, sourceFile string, chunks []core.Chunk) (int, error) {
	seen := make(map[string]bool, len(chunks))
	rows := make([]map[string]any, len(chunks))
	for i, c := range chunks {
		if c.SourceFile != sourceFile {
			return 0, fmt.Errorf("neo4jstore: replace chunks: %w", core.InvalidArgument("chunk %s has source file %q, want %q", c.ID, c.SourceFile, sourceFile))
		}
		if c.ID == "" || seen[c.ID] {
			return 0, fmt.Errorf("neo4jstore: replace chunks: %w", core.InvalidArgument("chunk id %q is empty or repeated", c.ID))
		}
		seen[c.ID] = true
		var note any
		if c.NoteID != "" {
			note = c.NoteID
		}
		rows[i] = map[string]any{
			"id": c.ID, "source_file": c.SourceFile, "namespace": c.Namespace, "doc_type": c.DocType,
			"idx": int64(c.Index), "content": c.Content, "header_path": c.HeaderPath, "page": int64(c.Page),
			"file_hash": c.FileHash, "note_id": note, "model": c.Model, "embedding": floats64(c.Vector),
			"indexed_at": c.IndexedAt.UnixMilli(),
		}
	}
	var removed int
	err := s.write(ctx, "replace chunks", func(t txn) error {
		p := map[string]any{"project": project, "source": sourceFile}
		r, err := t.single(stmtChunkDeleteFile, p)
		if err != nil {
			return err
		}
		removed = int(num(r.Values[0]))
		if len(rows) == 0 {
			return nil
		}
		_, err = t.collect(stmtChunkCreate, map[string]any{"project": project, "rows": rows})
		return err
	})
	if err != nil {
		return 0, err
	}
	if len(chunks) > 0 {
		s.ensureChunkIndex(ctx, len(chunks[0].Vector))
	}
	return removed, nil
}

// ChunkFile implements core.ChunkStore.
func (s *Neo4jStore) ChunkFile(ctx context.Context, project, sourceFile string) (*core.ChunkFile, error) {
	var out *core.ChunkFile
	err := s.read(ctx, "chunk file", func(t txn) error {
		r, err := t.single(stmtChunkFile, map[string]any{"project": project, "source": sourceFile})
		if err != nil {
			return err
		}
		out = nil
		if r != nil && len(strs(r.Values[2])) > 0 {
			out = &core.ChunkFile{SourceFile: sourceFile, FileHash: str(r.Values[0]), Namespace: str(r.Values[1]), IDs: strs(r.Values[2])}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("neo4jstore: chunk file %s: %w", sourceFile, core.ErrNotFound)
	}
	return out, nil
}

// decodeChunk reads the columns shared by chunk_search and chunk_stale.
func decodeChunk(r *neo4j.Record) core.ScoredChunk {
	v := r.Values
	score, _ := v[12].(float64)
	return core.ScoredChunk{Chunk: core.Chunk{
		ID: str(v[0]), SourceFile: str(v[1]), Namespace: str(v[2]), DocType: str(v[3]),
		Index: int(num(v[4])), Content: str(v[5]), HeaderPath: str(v[6]), Page: int(num(v[7])),
		FileHash: str(v[8]), NoteID: str(v[9]), Model: str(v[10]),
		IndexedAt: time.UnixMilli(num(v[11])).UTC(),
	}, Score: score}
}

// SearchChunks implements core.ChunkStore: through the vector index when
// it holds vectors of the query's length, else (or when the filtered
// index answer comes back short) by an exact scan.
func (s *Neo4jStore) SearchChunks(ctx context.Context, project string, q core.ChunkQuery) ([]core.ScoredChunk, error) {
	params := map[string]any{
		"project": project, "model": q.Model, "vector": floats64(q.Vector), "limit": limitParam(q.Limit),
		"namespace": q.Filter.Namespace, "doc_type": q.Filter.DocType, "source": q.Filter.SourceFile,
	}
	if len(q.Vector) > 0 && q.Limit > 0 && s.chunkIndexDim(ctx) == len(q.Vector) {
		k := min(max(q.Limit*indexOverFetch, indexMinK), indexMaxK)
		hits, complete, err := s.searchChunksIndexed(ctx, with(params, "k", int64(k)), q.Limit, k)
		if err != nil {
			return nil, err
		}
		if complete {
			return hits, nil
		}
	}
	var hits []core.ScoredChunk
	err := s.read(ctx, "search chunks", func(t txn) error {
		records, err := t.collect(stmtChunkSearch, params)
		if err != nil {
			return err
		}
		hits = make([]core.ScoredChunk, len(records))
		for i, r := range records {
			hits[i] = decodeChunk(r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// searchChunksIndexed asks the vector index; complete is false when the
// answer may miss chunks an exact scan would find.
func (s *Neo4jStore) searchChunksIndexed(ctx context.Context, params map[string]any, limit, k int) ([]core.ScoredChunk, bool, error) {
	var hits []core.ScoredChunk
	seen := 0
	err := s.read(ctx, "search chunks (vector index)", func(t txn) error {
		records, err := t.collect(stmtChunkSearchIndexed, params)
		if err != nil {
			return err
		}
		hits = make([]core.ScoredChunk, len(records))
		for i, r := range records {
			hits[i] = decodeChunk(r)
			seen = int(num(r.Values[13]))
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	complete := len(hits) >= limit || (len(hits) > 0 && seen < k)
	return hits, complete, nil
}

// KeywordSearchChunks implements core.ChunkStore through the fulltext
// index. The user's text is reduced to its words (runs of letters and
// digits, lower-cased), so Lucene syntax in it (quotes, *, :, AND) is
// never interpreted; a text without words matches nothing.
func (s *Neo4jStore) KeywordSearchChunks(ctx context.Context, project string, q core.ChunkKeywordQuery) ([]core.ScoredChunk, error) {
	terms := queryWords(q.Text)
	if len(terms) == 0 || q.Limit <= 0 {
		return []core.ScoredChunk{}, nil
	}
	var hits []core.ScoredChunk
	err := s.read(ctx, "keyword search chunks", func(t txn) error {
		records, err := t.collect(stmtChunkSearchKeyword, map[string]any{
			"project": project, "query": strings.Join(terms, " "), "limit": int64(q.Limit),
			"k":         int64(min(max(q.Limit*indexOverFetch, indexMinK), indexMaxK)),
			"namespace": q.Filter.Namespace, "doc_type": q.Filter.DocType, "source": q.Filter.SourceFile,
		})
		if err != nil {
			return err
		}
		hits = make([]core.ScoredChunk, len(records))
		for i, r := range records {
			hits[i] = decodeChunk(r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// DeleteChunks implements core.ChunkStore.
func (s *Neo4jStore) DeleteChunks(ctx context.Context, project string, ids []string) ([]string, error) {
	ids = distinct(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	var gone []string
	err := s.write(ctx, "delete chunks", func(t txn) error {
		r, err := t.single(stmtChunkDeleteIDs, map[string]any{"project": project, "ids": ids})
		if err != nil {
			return err
		}
		gone = strs(r.Values[0])
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		if slices.Contains(gone, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// DeleteFileChunks implements core.ChunkStore.
func (s *Neo4jStore) DeleteFileChunks(ctx context.Context, project, sourceFile string) (int, error) {
	return s.countingWrite(ctx, "delete file chunks", stmtChunkDeleteFile, map[string]any{"project": project, "source": sourceFile})
}

// ClearChunks implements core.ChunkStore.
func (s *Neo4jStore) ClearChunks(ctx context.Context, project string) (int, error) {
	return s.countingWrite(ctx, "clear chunks", stmtChunkClear, map[string]any{"project": project})
}

// countingWrite runs a write statement that returns one count.
func (s *Neo4jStore) countingWrite(ctx context.Context, op string, st statement, p map[string]any) (int, error) {
	var n int
	err := s.write(ctx, op, func(t txn) error {
		r, err := t.single(st, p)
		if err != nil {
			return err
		}
		n = int(num(r.Values[0]))
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// ChunkStats implements core.ChunkStore.
func (s *Neo4jStore) ChunkStats(ctx context.Context, project string) (core.ChunkStats, error) {
	var st core.ChunkStats
	err := s.read(ctx, "chunk stats", func(t txn) error {
		r, err := t.single(stmtChunkStats, map[string]any{"project": project})
		if err != nil {
			return err
		}
		st = core.ChunkStats{Chunks: int(num(r.Values[0])), Sources: strs(r.Values[1]), Namespaces: strs(r.Values[2])}
		return nil
	})
	if st.Sources == nil {
		st.Sources = []string{}
	}
	if st.Namespaces == nil {
		st.Namespaces = []string{}
	}
	slices.Sort(st.Sources)
	slices.Sort(st.Namespaces)
	return st, err
}

// StaleChunks implements core.ChunkStore.
func (s *Neo4jStore) StaleChunks(ctx context.Context, project, model string, limit int) ([]core.Chunk, error) {
	var out []core.Chunk
	err := s.read(ctx, "stale chunks", func(t txn) error {
		records, err := t.collect(stmtChunkStale, map[string]any{"project": project, "model": model, "limit": limitParam(limit)})
		if err != nil {
			return err
		}
		out = make([]core.Chunk, len(records))
		for i, r := range records {
			out[i] = decodeChunk(r).Chunk
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetChunkVectors implements core.ChunkStore.
func (s *Neo4jStore) SetChunkVectors(ctx context.Context, project, model string, vectors map[string][]float32) error {
	if len(vectors) == 0 {
		return nil
	}
	rows := make([]map[string]any, 0, len(vectors))
	for id, v := range vectors {
		rows = append(rows, map[string]any{"id": id, "embedding": floats64(v)})
	}
	err := s.write(ctx, "set chunk vectors", func(t txn) error {
		_, err := t.collect(stmtChunkSetVectors, map[string]any{"project": project, "model": model, "rows": rows})
		return err
	})
	if err != nil {
		return err
	}
	s.ensureChunkIndex(ctx, len(rows[0]["embedding"].([]float64)))
	return nil
}

// queryWords splits text into lower-case runs of letters and digits: a
// Lucene query of plain terms, OR-ed by the default operator.
func queryWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
