package core

import (
	"context"
	"time"
)

// The store interfaces are split by what callers need, so each is small
// enough to implement twice (memstore and neo4jstore) and to run through the
// one contract suite in core/storetest.
//
// Every method takes the project (a vault) it acts in and never returns data
// of another project: two projects may hold the same note IDs.
//
// Graph semantics shared by every store:
//   - A resolved link is an edge from the linking note to its target. Edges
//     form a set: several links from A to B are one edge, and in/out degree
//     count distinct notes. A note linking itself has one self-edge: it adds
//     one to its own in-degree and one to its out-degree.
//   - Unresolved links (Link.Target == "") are kept with their Key. When a
//     note is upserted whose Keys contain that Key, those links resolve to it
//     without a rescan (see GraphWriter.UpsertNotes).
//   - Tags compare case-insensitively (NormalizeTag).

// GraphReader answers questions about the note graph of a project.
type GraphReader interface {
	// GetNote returns the note with exactly this ID, or an error wrapping
	// ErrNotFound.
	GetNote(ctx context.Context, project, id string) (*Note, error)

	// GetNotes returns the notes with these IDs in the order asked, leaving
	// out IDs that do not exist.
	GetNotes(ctx context.Context, project string, ids []string) ([]Note, error)

	// ResolveTitles maps each existing ID to its title in one round trip;
	// IDs that do not exist are absent from the map.
	ResolveTitles(ctx context.Context, project string, ids []string) (map[string]string, error)

	// Neighbors returns up to limit notes adjacent to id. Order: outgoing
	// neighbours first, then incoming ones, each group by ID ascending; with
	// DirectionBoth a note that is both is listed once, as outgoing. An
	// unknown id yields an empty list, not an error. limit <= 0 means no limit.
	Neighbors(ctx context.Context, project, id string, dir Direction, limit int) ([]Neighbor, error)

	// Degree returns the distinct in- and out-degree of id; an error wrapping
	// ErrNotFound when id does not exist.
	Degree(ctx context.Context, project, id string) (Degree, error)

	// ShortestPath returns the IDs of a shortest path that follows link
	// direction from source to target, both ends included: [source] when
	// source == target, nil when either note is missing or target is
	// unreachable. When several shortest paths exist, the one whose ID
	// sequence is lexicographically smallest (compared element by element
	// from the source) is returned.
	ShortestPath(ctx context.Context, project, source, target string) ([]string, error)

	// Hubs returns the top limit notes by metric, score descending then ID
	// ascending. Notes with score 0 are included when fewer notes score more.
	// PageRank, derived from the whole graph, may come from a ranking
	// computed before the latest writes (a store shared by many processes
	// computes it once, in the background; neo4jstore/ranks.go): such an
	// answer carries a call warning (AddCallWarnings) saying how old it is,
	// leaves out notes deleted since, and the store catches up by itself.
	// An answer without a warning reflects every write before the call.
	Hubs(ctx context.Context, project string, metric HubMetric, limit int) ([]Hub, error)

	// NotesByTags returns up to limit notes carrying any (TagModeAny) or all
	// (TagModeAll) of tags, compared case-insensitively, ordered by ID
	// ascending. An empty tag list matches nothing.
	NotesByTags(ctx context.Context, project string, tags []string, mode TagMode, limit int) ([]Note, error)

	// RandomNote returns one note chosen uniformly among the project's notes,
	// or among those carrying any of tags when tags is not empty. Only
	// notes are candidates: an attachment or a canvas (IsFileNode) never is
	// (docs/DECISIONS.md, "random_node and search answer notes"). The store
	// counts the n candidates, calls pick(n) for an index in [0, n) and
	// returns the candidate at that index in ID order, so a seeded pick gives
	// a repeatable answer. It returns (nil, nil) when there is no candidate.
	RandomNote(ctx context.Context, project string, tags []string, pick func(n int) int) (*Note, error)

	// CountNotes returns the number of notes in the project.
	CountNotes(ctx context.Context, project string) (int, error)

	// NoteHashes maps every note ID of the project to its content Hash; the
	// sync worker diffs it against the vault so a restart rewrites only what
	// changed.
	NoteHashes(ctx context.Context, project string) (map[string]string, error)

	// UnresolvedLinkers returns, in ID order, the notes that hold an
	// unresolved link whose Key is one of keys.
	UnresolvedLinkers(ctx context.Context, project string, keys []string) ([]string, error)

	ContextReader   // a note with its neighbours, degree and link titles at once (core/context.go)
	NoteStateReader // what the vault mirror keeps of each note, for a restart without reading files (core/notestate.go)
}

// GraphWriter changes the note graph of a project in batches.
type GraphWriter interface {
	// UpsertNotes creates or replaces notes (by ID) with their tags and
	// links, all or nothing. Links whose Target names a note that does not
	// exist after the batch are stored as unresolved. After the write, every
	// unresolved link in the project whose Key is in a written note's Keys
	// becomes resolved to that note (when several notes of the batch claim
	// a key, the smallest ID wins). Note.Project is ignored; project wins.
	UpsertNotes(ctx context.Context, project string, notes []Note) error

	// DeleteNotes removes notes and their edges. Links of other notes that
	// pointed at a deleted note become unresolved, keeping their Key.
	// It returns how many of ids existed.
	DeleteNotes(ctx context.Context, project string, ids []string) (int, error)
}

// StagedWriter is an optional upgrade of GraphWriter for a store where a
// large write costs less when every note exists before any link is drawn
// (Neo4j: in batches, a link into a later batch is stored unresolved, then
// rewired). The vault mirror uses it for writes larger than one batch.
type StagedWriter interface {
	// UpsertNotesStaged writes notes with the outcome of one UpsertNotes
	// call, but in several transactions: not all or nothing. After an
	// error, some notes may be written; writing the same notes again
	// completes the job. A note whose links are not written yet has an
	// empty hash in NoteHashes, so a sync after a crash rewrites it.
	// progress (may be nil) receives counts that add up to len(notes).
	UpsertNotesStaged(ctx context.Context, project string, notes []Note, progress func(notes int)) error
}

// StagedStreamer is an optional upgrade of StagedWriter: the same staged
// write, given in parts, so that a caller never holds every note's text at
// once (a first sync of 100k notes into Neo4j held the whole vault). The
// notes of every part are stored as they come; their links wait for
// Finish, which draws them as one UpsertNotesStaged call of all the parts'
// notes would: a link into a later part resolves as if the parts were one.
type StagedStreamer interface {
	StagedWriter
	// BeginStaged starts a staged write into project. progress (may be
	// nil) receives counts that add up to the notes written once Finish
	// returns.
	BeginStaged(ctx context.Context, project string, progress func(notes int)) (StagedStream, error)
}

// StagedStream is one staged write given in parts (StagedStreamer). It is
// not all or nothing, like UpsertNotesStaged: a write abandoned before
// Finish, or failing, leaves notes with an empty hash in NoteHashes, which
// writing the same notes again completes. A stream is used by one
// goroutine; a note repeated across parts counts once, its last version.
type StagedStream interface {
	// Write stores a part's notes, without their links.
	Write(ctx context.Context, notes []Note) error
	// Finish draws the links of every part and completes the write.
	Finish(ctx context.Context) error
}

// ChangeFollower is an optional upgrade of a store several processes
// write at once (Neo4j replicas of one vault): it tells one process of the
// notes the others write, so that a client subscribed to a note through
// this process hears of a change made through another.
type ChangeFollower interface {
	// FollowChanges calls changed with the IDs of the notes of project
	// that other processes (other Stores) wrote or deleted, looking every
	// interval, until ctx ends. A nil slice means the store cannot tell
	// which (a write listed too many, or more writes came than its log
	// keeps): any note may have changed. The writes before the call are
	// not reported; neither are this Store's own. Errors are retried at
	// the next interval.
	FollowChanges(ctx context.Context, project string, interval time.Duration, changed func(ids []string))
}

// WriteWarmer is an optional upgrade of a store whose first writes after
// it starts are slow: Neo4j runs each statement's first execution cold (a
// fresh JVM plans it, loads and compiles its code), which made the first
// note saved after a start take seconds to reach the store where the next
// took tens of milliseconds. A long-lived process calls WarmWrites once
// after its first sync, so that cost is paid before a person waits.
type WriteWarmer interface {
	// WarmWrites makes the writes the vault makes as files change
	// (UpsertNotes of new and changed notes, DeleteNotes, AppendChanges,
	// PruneChanges) on made-up notes in a project of its own, and removes
	// them again: every other project is left as it was.
	WarmWrites(ctx context.Context, like string) error
}

// GraphStore is what a store offers for the note graph.
type GraphStore interface {
	GraphReader
	GraphWriter
}

// StoreProvider is a complete vaultgraph store: the store contract, named as
// the design card names it. neo4jstore.Neo4jStore and the embedded
// memstore.Store implement it. It grows as toolsets land (search, memories,
// entities, chunks), each as an interface of its own.
type StoreProvider interface {
	GraphStore
	ChunkStore
	EntityStore
	MemoryStore
	SearchStore // note embeddings and keyword relevance (core/search.go)
	ChangeLog   // what changed in the vault, for recent_changes (core/changelog.go)
	SyncOrigins // where each project's last full sync ran (core/project.go)
	// Close releases the store's resources.
	Close(ctx context.Context) error
}
