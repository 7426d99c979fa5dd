// Package memstore is vaultgraph's embedded store: the note graph of every
// project held in process, and the data that has no file (project records
// and note embeddings now; memories, relations and chunks later) kept
// durable in a bbolt file in a state directory. Search (search.go) is an
// exact cosine scan over contiguous per-model vector rows plus a BM25
// index kept current on every write.
//
// Notes are not persisted: the vault is their source of truth and the sync
// worker rebuilds the graph from it at start (NoteHashes tells it what is
// already there). Everything else goes through the durable layer in
// internal/kv, which fsyncs every commit.
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
// by a linear counting sort, PageRank with core.PageRank). Views (the
// graph tools' reads, core.ContextReader) share each node's view links:
// its distinct link targets in first-link order, their IDs and titles
// copied into one allocation per note, rebuilt when a target or a target's
// title changes. At 100k notes, visiting every target of every neighbour
// (a lookup by ID, then its ID and title, each a cache miss) was most of a
// get_neighbors call; the copies cost ~50 MB at 100k notes. Shortest paths
// are a bidirectional breadth-first search marking nodes in pooled
// per-slot arrays.
package memstore
