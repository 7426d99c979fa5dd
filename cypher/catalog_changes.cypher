// The project's change counter and what the writes after $since changed
// (neo4jstore/catalog.go): one entry per write up to the counter, each
// {ids: the notes whose existence, title or tags it may have changed, or
// null when it changed too many to list}. Nothing when more than
// $max_changes writes happened: the catalog loads again then.
OPTIONAL MATCH (g:GraphMeta {project: $project})
WITH coalesce(g.version, 0) AS version
RETURN version, COLLECT {
  MATCH (c:GraphChange {project: $project})
  WHERE c.version > $since AND c.version <= version AND version - $since <= $max_changes
  RETURN {ids: c.ids}
} AS changes
