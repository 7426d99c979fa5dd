// The project's change counter and what the writes after $since changed
// (neo4jstore/catalog.go): one entry per write up to the counter, each
// {ids: the notes whose existence, title, tags or links it may have
// changed, or null when it changed too many to list}. Nothing when more
// than $max_changes writes happened: the catalog loads again then.
// pending is the count of staged writes still drawing links
// (write_degrees_pending): their link transactions list no notes, so a
// catalog reads the links of the notes listed meanwhile again once it is 0.
OPTIONAL MATCH (g:GraphMeta {project: $project})
WITH coalesce(g.version, 0) AS version, coalesce(g.degreesPending, 0) AS pending
RETURN version, COLLECT {
  MATCH (c:GraphChange {project: $project})
  WHERE c.version > $since AND c.version <= version AND version - $since <= $max_changes
  RETURN {ids: c.ids}
} AS changes, pending
