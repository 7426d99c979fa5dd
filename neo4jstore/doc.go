// Package neo4jstore implements core.StoreProvider on Neo4j 5 (Community or
// Enterprise, single server or cluster, Aura) with the official Go driver.
// Every statement it runs lives in package cypher as a named file; nothing
// is ever spliced into Cypher.
//
// # Graph model
//
//	(:Note {project, id, doc, targets, title, path, content, tagsNorm, hash,
//	        mtime, keys, linkKeys, inDegree, outDegree})
//	(:Note)-[:LINKS_TO]->(:Note)             one per distinct resolved pair
//	(:Note)-[:DANGLING]->(:Unresolved {project, key})
//	(:GraphMeta {project, version, changedAt}) change counter, one per project
//	(:GraphChange {project, version, at, ids, writer}) what each write changed, and which Store wrote it (last 256)
//	(:GraphRank {project, version, ids, scores, ...}) stored PageRank (ranks.go)
//	(:Lease {project, name, holder, expires}) one process's turn (lease.go)
//	(:VectorMeta {project, epoch, rev})       vector revision, one per project
//	(:SchemaMigration {version, name, appliedAt})
//
// Every node carries its project and every query filters on it, so one
// database holds many vaults.
//
// What reads return lives in three properties: doc, the JSON of the note
// (title, path, tags, hash, mtime, frontmatter, links without their
// targets, a revision, and the length and CRC-32C of the content), content,
// the note's text, and targets, [revision, target of link 0, target of
// link 1, ...] with "" for an unresolved link. Neo4j reads are
// read-committed, not snapshots: a reader walking a node's properties while
// a commit rewrites them can see some old and some new, and the contract
// suite's concurrency case caught exactly that (a title of one generation
// with the tags of the previous) while notes were stored as separate
// properties. One property value is always read whole; the revision in
// both tells a reader that caught doc and targets from different writes to
// read again, and the content's checksum in doc one that caught doc and
// content from different writes. Targets are kept apart from doc because resolution and
// deletion rewrite them from Cypher (which edits lists, not JSON), and
// rewriting a short list instead of the whole note made a 30k-note cold
// load about 25% faster. The other note properties exist for queries and
// indexes only: title (titles, hubs, fulltext), tagsNorm
// (lowercased tags, for tag queries), hash (NoteHashes), linkKeys (the key
// of each link, for resolution), inDegree/outDegree (hubs, Degree); path,
// mtime and keys are kept for people who query the graph with Cypher.
// Content is stored once: until issue 44 doc held it too (the fulltext
// index needs it as a plain property), and a first sync of 100k notes
// wrote and logged every note's text twice; notes written then still
// carry it in doc and are read from there.
//
// Unresolved links hang on ghost nodes, one per (project, key), through
// DANGLING relationships, a type of their own so that LINKS_TO stays a
// Note-to-Note graph: paths, neighbours and degree counts need no label
// filter. A note upserted with a key finds the notes waiting for it with
// one index seek on the ghost. Deleting a note turns the links other notes
// hold to it back into DANGLING ones with the key each link was written
// with (linkKeys).
//
// inDegree and outDegree are kept current by every write transaction (new
// links are counted up, changed ones recounted with Neo4j's O(1) degree
// lookup), and range indexes on (project, inDegree) and (project,
// outDegree) make get_hubs an index-ordered top-k. PageRank is stored in
// Neo4j (GraphRank: the top 1,000 notes with the change counter they were
// ranked at), recomputed in the background after writes settle by the one
// process holding the project's lease, and read in one statement; see
// ranks.go. Every write transaction bumps the counter first and logs the
// notes it may change as a GraphChange, which other processes' note
// catalogs follow (catalog.go). The bump also takes the project's lock: writers of one project run one after the
// other, which keeps ghost and degree upkeep free of races.
//
// # Writes
//
// UpsertNotes and DeleteNotes run as one managed write transaction each
// (see their steps), so callers choose the batch size. Links of notes that
// existed are adjusted, never dropped and re-created, because a reader
// walking a hub's in-links while a commit re-created them would see the
// hub lose links it never lost. Much larger batches than the vault's 2000
// can exceed the server's transaction memory limit on a small heap
// (Neo.TransientError.General.MemoryPoolOutOfMemoryError).
//
// Larger writes (a first sync) go through a staged stream (BeginStaged,
// core.StagedStreamer; UpsertNotesStaged is one in a single part;
// staged.go): every new note first, part by part as the vault reads them,
// with an empty hash and its links' targets as given; then, at Finish,
// their links, out-degrees, hashes and the targets that resolve otherwise
// than given; then the in-degrees of everything they link to, recounted;
// then the notes that existed, as UpsertNotes batches. Notes and (in a project without ghosts) links go in
// two concurrent streams of transactions. In batches, every link into a
// later batch was written as a ghost and rewired when its target arrived;
// staged, none is, and 10k notes load in under 5 s instead of 11 s, 100k
// in under a minute instead of timing out. A crash before the hashes leaves
// notes that the next sync rewrites.
//
// The fulltext index is eventually consistent (migration 5): Lucene takes in
// a commit's text in the background, not inside the commit, which made
// 100k notes load in 50 s instead of 80. Keyword search first calls
// db.index.fulltext.awaitEventuallyConsistentIndexRefresh (about a
// millisecond when the index is current), so a read after a write still
// finds it.
//
// # Reads
//
// GetNotes and ResolveTitles take any number of IDs in one round trip.
// Orders come from indexes where a limit applies: statements name every
// property of a composite index in ORDER BY (n.project, n.id), because the
// planner provides index order only then. IDs compare by code point in
// Neo4j as in Go, so orders agree with memstore (the differential test
// uses IDs where UTF-16 order would differ). ShortestPath reads up to 65
// shortest paths (allShortestPaths under a LIMIT, which stops its
// enumeration) and keeps the lexicographically smallest in Go; when 65
// came back there may be thousands (1,790 for one pair of obsidian-hub,
// 7,776 in the contract suite's layered case), and it walks instead: the
// length d from shortestPath, then from the source step i takes the
// smallest-ID note the current one links to that is exactly d - i links
// from the target (a shortestPath per candidate), the lexicographically
// smallest shortest path without enumerating ties.
//
// The graph tools' reads take one round trip each. NoteContext
// (context.go) reads a note, its neighbours, its stored degree and its
// links' titles in one statement; neighbours come from their head (see
// noteDoc in codec.go: title, tags, link count and the first 501
// characters), so a neighbour with 300 KB of content costs 500 characters.
// Titles come from the note catalog (catalog.go) when it is current, else
// from a walk of each note's LINKS_TO relationships in the same statement.
// The catalog is this process's copy of every note's ID, title and tags in
// a project, valid at one value of GraphMeta.version (bumped by every
// write): RandomNote and NotesByTags pick from it in process and read the
// picked notes in one statement that returns the counter too; a catalog
// the database has moved past catches up by reading the notes the writes
// since changed (their GraphChange entries), or loads again when the log no
// longer reaches back (at most one load per second). Without a
// catalog RandomNote counts candidates, calls pick and skips to that index
// of the (project, id) index (O(notes): 22 ms at 100k notes, 124 ms
// tagged), and NotesByTags reads that index in order and filters by tag.
//
// # Driver
//
// One Store is one driver (connection pool) for the process. Each call
// opens a session sharing one bookmark manager, so a read sees this
// Store's earlier writes on a cluster too; on a routing URI (neo4j://)
// reads are sent to the leader like writes, so a read also sees every write
// another process had acknowledged before it started (consistency.go).
// Writes run a managed transaction
// (ExecuteWrite), which the driver retries on transient failures (leader
// switch, deadlock, a restarting server) for up to Config.MaxRetryTime.
// Reads run each statement as an auto-commit transaction, one network
// round trip instead of two (0.50 → 0.33 ms p50 for an indexed lookup);
// Neo4j's transactions are read-committed, so a read transaction gave its
// statements no more isolation than that. A read is run again after a
// retryable failure, with backoff, up to 8 times (store.go). Config.Timeout bounds each call and is sent as the
// server-side transaction timeout. A uniqueness violation becomes
// core.ErrExists; every other failure of the database or the network is a
// *core.ProviderError carrying the operation and, for logs, the driver's
// error and the failing statement's name. Nothing panics when Neo4j is
// down, and the same Store works again once it is back (the pool replaces
// dead connections; TestStoreSurvivesNeo4jRestart).
//
// # Schema migrations
//
// Open applies, in order, the migrations the database has not recorded
// (migrations.go): keys on Note (project, id), Unresolved (project, key),
// GraphMeta (project) and SchemaMigration (version); the degree indexes;
// the fulltext index note_fulltext on title and content (made eventually
// consistent by migration 5); and the vector
// index note_embedding on Note.embedding (cosine, Config.VectorDimensions,
// default 384). Each step is idempotent and recorded as a SchemaMigration
// node, so concurrent starts are harmless. The vector index then follows
// the vectors that arrive: SetNoteVectors drops and creates note_embedding
// again when their dimension differs from its own (a change of embedding
// model; see search.go and docs/SEARCH.md). Migration 6 adds the VectorMeta
// key and the (project, vectorRev) index that keep each process's mirror of
// the vectors current (mirror.go); vector search answers from the mirror
// and falls back to the index. Status reports server, migrations and
// indexes.
//
// # Measurements
//
// go test ./neo4jstore -run '^$' -bench . (local launcher: Neo4j 5.26.30
// Community, 512 MB heap, 256 MB page cache; 2 vCPU; power-law vault with
// 5 links and 1-3 tags per note on average, 500 bytes of content):
//
//	cold load   10k notes:  see BENCHMARKS in the report; 100k notes: ~56 s
//	p50 at 100k: GetNote 0.7 ms, Neighbors 0.9 ms, ShortestPath 1.3 ms,
//	             Hubs in/out 0.65 ms, PageRank 0.5 ms cached (1.4 s cold;
//	             now always stored, see BenchmarkReplicaAfterWrite),
//	             ResolveTitles(50) 1.2 ms, NotesByTags 1.4 ms, RandomNote 23 ms
//	             (these before auto-commit reads and the catalog; the tools'
//	             figures through stdio are in docs/BENCHMARKS.md)
package neo4jstore
