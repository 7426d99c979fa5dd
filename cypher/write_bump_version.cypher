// First statement of every write transaction: bumps the project's change
// counter, which tells cached PageRank (in this or another process) that the
// graph changed. Its lock also serialises writers of one project, so two
// batches never race on the same ghost node or degree count.
MERGE (g:GraphMeta {project: $project})
SET g.version = coalesce(g.version, 0) + 1
RETURN g.version AS version
