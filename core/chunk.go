package core

import (
	"context"
	"time"
)

// DocTypeDocument is the doc_type of every chunk of an indexed file (spec
// 004); memories answer with doc_type "memory".
const DocTypeDocument = "document"

// Chunk is one indexed piece of a document (spec 004's index_file): its
// text, where it comes from and its embedding.
type Chunk struct {
	// ID is unique in the project ("chunk_" and 16 hex digits).
	ID string
	// SourceFile is the absolute, cleaned path of the indexed file.
	SourceFile string
	// Namespace organises documents ("default", "project:x").
	Namespace string
	// DocType is DocTypeDocument.
	DocType string
	// Index is the chunk's position in its file, from 0.
	Index int
	// Content is the chunk's text.
	Content string
	// HeaderPath is "A > B > C" for markdown (see package chunk).
	HeaderPath string
	// Page is the 1-based PDF page, 0 for other formats.
	Page int
	// FileHash is the SHA-256 (hex) of the whole file when it was indexed.
	FileHash string
	// NoteID is the ID of the vault note the file is, "" for a file
	// outside the vault: it links the chunk to the note graph
	// ((:Chunk)-[:PART_OF]->(:Note) in Neo4j).
	NoteID string
	// Model is the Embedder.Model() that produced Vector.
	Model string
	// Vector is the L2-normalised embedding of Content. Stores leave it
	// out of what they return (it is large and callers never need it).
	Vector []float32
	// IndexedAt is when the file was indexed (UTC, millisecond precision).
	IndexedAt time.Time
}

// ChunkFilter narrows a chunk search; an empty field matches anything.
type ChunkFilter struct {
	Namespace  string
	DocType    string
	SourceFile string
}

// ChunkQuery is a vector search over chunks.
type ChunkQuery struct {
	// Vector is the L2-normalised query embedding.
	Vector []float32
	// Model is the model of Vector: only chunks embedded by the same model
	// are compared with it.
	Model  string
	Filter ChunkFilter
	// Limit caps the results; it is at least 1.
	Limit int
}

// ChunkKeywordQuery is a keyword (full-text) search over chunks: the
// other half of hybrid ranking, which finds rare and exact words that
// embeddings blur.
type ChunkKeywordQuery struct {
	// Text is the user's query, plain text: stores treat every character
	// as data (no query syntax).
	Text   string
	Filter ChunkFilter
	// Limit caps the results; it is at least 1.
	Limit int
}

// ScoredChunk is a search hit. Score is the cosine similarity clamped to
// [0, 1], higher is closer.
type ScoredChunk struct {
	Chunk
	Score float64
}

// ChunkFile describes the chunks of one indexed file.
type ChunkFile struct {
	SourceFile string
	FileHash   string
	Namespace  string
	// IDs are the file's chunks, by chunk index.
	IDs []string
}

// ChunkStats summarises a project's chunks (get_index_stats).
type ChunkStats struct {
	// Chunks is the number of chunks.
	Chunks int
	// Sources are the distinct source files, sorted.
	Sources []string
	// Namespaces are the distinct namespaces of chunks, sorted.
	Namespaces []string
}

// ChunkStore keeps the document chunks of a project durably: chunks have
// no file of their own (the indexed file may be outside the vault), so a
// store must keep them across restarts. Memories are not chunks: nothing
// here touches them.
type ChunkStore interface {
	// ReplaceFileChunks deletes every chunk of sourceFile and writes
	// chunks in their place, all or nothing; every chunk's SourceFile must
	// be sourceFile. It returns how many chunks were deleted.
	ReplaceFileChunks(ctx context.Context, project, sourceFile string, chunks []Chunk) (int, error)

	// ChunkFile describes the chunks of sourceFile, or returns an error
	// wrapping ErrNotFound when it has none. The hash and namespace are
	// those of its chunks (all chunks of a file share them).
	ChunkFile(ctx context.Context, project, sourceFile string) (*ChunkFile, error)

	// SearchChunks returns the q.Limit chunks most similar to q.Vector
	// among those embedded by q.Model that match q.Filter, score
	// descending then ID ascending, without their vectors.
	SearchChunks(ctx context.Context, project string, q ChunkQuery) ([]ScoredChunk, error)

	// KeywordSearchChunks returns up to q.Limit chunks matching words of
	// q.Text (content or header path) among those matching q.Filter, best
	// first, ties by ID, without vectors. Scores are in (0, 1], higher is
	// better; how a store scales them is its own (BM25 normalised by the
	// query's IDF in memstore, Lucene's score over the best one in Neo4j),
	// so only the order is comparable across stores.
	KeywordSearchChunks(ctx context.Context, project string, q ChunkKeywordQuery) ([]ScoredChunk, error)

	// DeleteChunks deletes the chunks with these IDs and returns the IDs
	// that existed, in the order asked, each once.
	DeleteChunks(ctx context.Context, project string, ids []string) ([]string, error)

	// DeleteFileChunks deletes every chunk of sourceFile and returns how
	// many there were.
	DeleteFileChunks(ctx context.Context, project, sourceFile string) (int, error)

	// ClearChunks deletes every chunk of the project and returns how many
	// there were.
	ClearChunks(ctx context.Context, project string) (int, error)

	// ChunkStats summarises the project's chunks.
	ChunkStats(ctx context.Context, project string) (ChunkStats, error)

	// StaleChunks returns up to limit chunks whose Model is not model, by
	// ID, without vectors: the ones to embed again after a model change.
	StaleChunks(ctx context.Context, project, model string, limit int) ([]Chunk, error)

	// SetChunkVectors stores new vectors, all of model, for existing
	// chunks by ID; IDs that do not exist are ignored.
	SetChunkVectors(ctx context.Context, project, model string, vectors map[string][]float32) error
}
