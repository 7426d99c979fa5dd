package core

import (
	"context"
	"time"
)

// Memories (spec 004) are short texts an assistant keeps across sessions,
// with a type, a namespace, an importance and a confidence that feedback
// moves. They have no file: the store is their only home, so every write
// is durable before it returns.

// Memory is one stored memory of a project.
type Memory struct {
	ID          string
	Content     string
	ContentHash string // "sha256_" + hex SHA-256 of Content; unique per (project, namespace)
	Type        string // preference, decision, pattern, session, fact or golden_rule
	Namespace   string // global, default or project:{name}
	Importance  float64
	// Confidence is kept in thousandths (300 is 0.3) so that feedback adds
	// and subtracts exactly: 0.3 plus six successes is 0.9, not 0.8999….
	Confidence   int
	Metadata     map[string]any // nil when none
	Vector       []float32      // embedding of Content by Model; nil when none
	Model        string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	LastAccessed time.Time
	AccessCount  int
}

// MemoryFilter selects memories. Zero fields select everything.
type MemoryFilter struct {
	Namespaces    []string // any of these; empty: any namespace
	Type          string   // exactly this type; "": any
	MinImportance float64  // importance >= MinImportance
	MinConfidence int      // confidence (thousandths) >= MinConfidence
}

// MemoryOrder names the field ListMemories sorts by. Ties are broken by ID
// ascending, so a page boundary is stable.
type MemoryOrder string

// Orders ListMemories knows.
const (
	OrderCreatedAt    MemoryOrder = "created_at"
	OrderUpdatedAt    MemoryOrder = "updated_at"
	OrderLastAccessed MemoryOrder = "last_accessed"
	OrderConfidence   MemoryOrder = "confidence"
	OrderImportance   MemoryOrder = "importance"
)

// MemoryPage asks ListMemories for one page.
type MemoryPage struct {
	Order      MemoryOrder
	Descending bool
	Offset     int
	Limit      int // <= 0: no limit
}

// ScoredMemory is a memory with its cosine similarity to a query, in [0, 1].
type ScoredMemory struct {
	Memory
	Score float64
}

// MemoryEvent is one entry of a memory's validation history: a validation
// (memory_validate), an application (memory_apply, the TRY step) or an
// outcome (memory_outcome, the LEARN step).
type MemoryEvent struct {
	ID            string
	MemoryID      string
	Kind          string // validate, apply or outcome
	Positive      *bool  // was_helpful / success; nil for apply
	Context       string
	ApplyID       string // for an outcome: the apply event it closes, if given
	SessionID     string // the client's session, when it named one
	OldConfidence int    // thousandths
	NewConfidence int
	Promoted      bool
	At            time.Time
}

// MemoryRelation is a directed, typed, weighted edge between two memories
// of a project. (From, To, Type) is its identity.
type MemoryRelation struct {
	From      string
	To        string
	Type      string // relates_to, supersedes, caused_by or contradicts
	Weight    float64
	CreatedAt time.Time
}

// MemoryStore keeps memories, their history and their relations. Every
// write is durable when it returns nil (fsynced, or committed in Neo4j),
// and all or nothing.
type MemoryStore interface {
	// PutMemory stores m unless the project already holds a memory with
	// m's Namespace and ContentHash; then it stores nothing and returns
	// that memory with created false. The check and the write are atomic.
	PutMemory(ctx context.Context, project string, m Memory) (stored Memory, created bool, err error)

	// GetMemory returns the memory, or an error wrapping ErrNotFound.
	GetMemory(ctx context.Context, project, id string) (*Memory, error)

	// ListMemories returns one page of the memories f selects, in page's
	// order, and how many f selects in all.
	ListMemories(ctx context.Context, project string, f MemoryFilter, page MemoryPage) ([]Memory, int, error)

	// CountMemories returns how many memories f selects.
	CountMemories(ctx context.Context, project string, f MemoryFilter) (int, error)

	// SearchMemories returns up to limit memories f selects whose vector
	// was made by model, by cosine similarity to vector (clamped to
	// [0, 1]) descending, ties by ID ascending.
	SearchMemories(ctx context.Context, project, model string, vector []float32, f MemoryFilter, limit int) ([]ScoredMemory, error)

	// KeywordSearchMemories returns the memories f selects whose content
	// holds words of text (letters and digits, lower-cased, English stop
	// words dropped; no query syntax), best first, ties by ID, at most
	// limit (<= 0: every match). Score is BM25 over the contents of all
	// the project's memories divided by the sum of the query terms' IDF,
	// capped at 1 (package embedding/keyword's scale), so it is the same
	// number on every store and can be weighed against cosine similarity.
	KeywordSearchMemories(ctx context.Context, project, text string, f MemoryFilter, limit int) ([]ScoredMemory, error)

	// UpdateMemory reads the memory, lets change modify it and writes back
	// its Type, Importance, Confidence, Metadata, UpdatedAt, LastAccessed
	// and AccessCount, together with the event change returns (when not
	// nil), in one transaction: concurrent updates of one memory never
	// lose one another. It returns the memory as written, or an error
	// wrapping ErrNotFound; an error from change is returned as it is and
	// nothing is written. An event that closes an application (ApplyID
	// set) is written only if no event of the memory closes that
	// application yet; otherwise nothing is written and the error wraps
	// ErrConflict: an apply event is closed at most once, also by
	// concurrent callers.
	UpdateMemory(ctx context.Context, project, id string, change func(m *Memory) (*MemoryEvent, error)) (*Memory, error)

	// SetMemoryVector replaces the memory's vector and the model that made
	// it (after a change of embedding model), or fails with ErrNotFound.
	SetMemoryVector(ctx context.Context, project, id, model string, vector []float32) error

	// TouchMemories sets LastAccessed to at and adds one to AccessCount of
	// each existing memory of ids.
	TouchMemories(ctx context.Context, project string, ids []string, at time.Time) error

	// DeleteMemories deletes the memories with their events and relations
	// and returns the IDs that existed, in the order given.
	DeleteMemories(ctx context.Context, project string, ids []string) ([]string, error)

	// MemoryEvents returns the events of memoryID ("" for every memory),
	// oldest first (At, then ID), at most limit of the newest (<= 0: all).
	MemoryEvents(ctx context.Context, project, memoryID string, limit int) ([]MemoryEvent, error)

	// RelateMemories creates the relation or, when (From, To, Type) exists,
	// replaces its weight; created reports which. An error wraps
	// ErrNotFound when either memory does not exist.
	RelateMemories(ctx context.Context, project string, r MemoryRelation) (created bool, err error)

	// UnrelateMemories deletes relations from -> to of relType ("" for
	// every type); with to "", every relation touching from, in either
	// direction. It returns how many it deleted.
	UnrelateMemories(ctx context.Context, project, from, to, relType string) (int, error)

	// MemoryRelations returns every relation with an end in ids, ordered by
	// From, To, Type.
	MemoryRelations(ctx context.Context, project string, ids []string) ([]MemoryRelation, error)
}

// Cosine01 returns the cosine similarity of two L2-normalised vectors of
// one length (their dot product), clamped to [0, 1]: the score memory
// tools report. Opposite or unrelated texts score 0.
func Cosine01(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	// Four sums let the CPU overlap the multiply-adds.
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i]) * float64(b[i])
		s1 += float64(a[i+1]) * float64(b[i+1])
		s2 += float64(a[i+2]) * float64(b[i+2])
		s3 += float64(a[i+3]) * float64(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i]) * float64(b[i])
	}
	return min(max(s0+s1+s2+s3, 0), 1)
}
