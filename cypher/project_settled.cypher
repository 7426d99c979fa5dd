// The project's change counter once no write of it is in flight, and its
// count of staged writes still drawing links (write_degrees_pending).
// Neo4j's read-committed reads are not atomic over a transaction that is
// being applied: a read can see a write's counter bump and only part of
// its changes. This statement takes the project's write lock, the one every
// writer takes in write_bump_version and keeps until its changes are
// applied; so every write up to the counter it returns is whole, and what
// is read after it (in another transaction) is as new or newer. Derived
// data labelled with a counter (the stored PageRank, the note catalog, hub
// answers: neo4jstore/ranks.go, catalog.go, hubs.go) reads it first.
// A project never written to has no GraphMeta and nothing to lock.
OPTIONAL MATCH (g:GraphMeta {project: $project})
FOREACH (held IN CASE WHEN g IS NULL THEN [] ELSE [g] END | SET held.settledAt = timestamp())
RETURN coalesce(g.version, 0) AS version, coalesce(g.degreesPending, 0) AS pending
