// Package memstore is vaultgraph's embedded store: the note graph of every
// project held in process, and everything it holds kept durable in a bbolt
// file in a state directory (internal/kv, which fsyncs every commit).
// Search (search.go) is an exact cosine scan over contiguous per-model
// vector rows plus a BM25 index kept current on every write (its analysis
// of a write's notes: keywordanalysis.go).
//
// Notes are persisted (record.go, persist.go): per project, a bucket of
// note records (what the store keeps in memory: title, path, hash, size,
// mtime, tags, links with their current targets, entity) and a bucket of
// bodies (content and frontmatter), which stay on disk and are read by the
// calls that return them. Every write is applied in memory and then
// committed to disk under the project's write lock, so the disk sees the
// writes in memory's order and a write returns once it is on disk; a
// failed commit makes the store forget the project, which the next call
// loads again from the disk. A project is loaded at its first use
// (load.go): its note records are decoded and the graph built in one pass,
// while the vectors and the keyword index, which needs every note's text,
// fill in the background (searches wait for them). NoteStates lets the
// vault restart from the stored records without reading its files; when it
// is what loads the project, it gives the states from the load's own pass
// and the background load waits for the next call (see loadStates).
//
// Each project has its own graph behind a sync.RWMutex: many readers, one
// writer. Notes are copied on the way in and out, so callers can never
// change the store through a note they passed or got. Ordered answers come
// from ID-sorted adjacency and tag lists kept current on every write (one
// merge per touched list per batch). A write larger than the vault's batch
// (a first sync) comes as one staged write (core.StagedWriter), which is
// one batch here, with the notes' keyword analysis running on the other
// CPUs a few hundred notes ahead of the write instead of before it: a
// first sync of 100k notes wrote in 4.1–4.6 s instead of 6.5–7.8 s in
// batches of 2,000, for ~340 MB more at its peak. Hub rankings are cached per graph
// version and rebuilt lazily by the first Hubs call after a change (degree
// by a linear counting sort, PageRank with core.PageRank). A node keeps
// only what reads answer from memory (graph.go): ID, title, path, hash,
// tags, entity, each link's key and target, and its distinct link targets
// in first-link order, which views (the graph tools' reads,
// core.ContextReader) show with the targets' IDs and titles. Its strings
// are windows into arenas (arena.go). Size, mtime, the links as written,
// content and frontmatter are read from the note records on disk by the
// calls that return them. Vectors are int8 in memory (search.go) and
// float32 on disk (vectors.go). Shortest paths
// are a bidirectional breadth-first search marking nodes in pooled
// per-slot arrays.
package memstore
