// First statement of every write transaction: bumps the project's change
// counter, which tells cached derived data (in this or another process) that
// the graph changed, and notes the time (g.changedAt, ms) for the PageRank
// debounce. Its lock also serialises writers of one project, so two batches
// never race on the same ghost node or degree count.
//
// The write is logged as (:GraphChange {project, version, ids, writer}):
// $changed lists the notes whose existence, title or tags it may change,
// and so the sources of the links it draws or removes, or their targets
// (null: too many to list), so other processes' note catalogs follow it by
// reading those notes only (neo4jstore/catalog.go); $writer names the
// Store that wrote it, so a process tells other replicas' writes from its
// own when it tells its clients of them (neo4jstore/follow.go). The entry 256 writes older
// goes in the same statement, so the log stays 256 writes long.
MERGE (g:GraphMeta {project: $project})
SET g.version = coalesce(g.version, 0) + 1, g.changedAt = timestamp()
CREATE (:GraphChange {project: $project, version: g.version, at: g.changedAt, ids: $changed, writer: $writer})
WITH g
OPTIONAL MATCH (old:GraphChange {project: $project, version: g.version - 256})
DELETE old
RETURN g.version AS version
