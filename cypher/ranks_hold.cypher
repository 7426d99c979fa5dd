// First statement of a PageRank computation (neo4jstore/ranks.go): takes
// the project's write lock, the one every writer of the project takes in
// write_bump_version, and returns the change counter. Neo4j reads are read
// committed without atomic visibility: a statement can see part of a
// transaction that is still being applied, so a computation that only read
// the counter first could label a half-written graph as current. Holding
// the lock, no write of the project is in flight while the graph is read.
// A project never written to has no GraphMeta and nothing to lock.
OPTIONAL MATCH (g:GraphMeta {project: $project})
FOREACH (held IN CASE WHEN g IS NULL THEN [] ELSE [g] END | SET held.rankReadAt = timestamp())
RETURN coalesce(g.version, 0) AS version
