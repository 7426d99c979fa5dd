// What the writes to a project after $since changed, for a process telling
// its clients of other replicas' writes (neo4jstore/follow.go): the change
// counter and the log's entries after $since up to it, each {version, ids:
// the notes written or deleted, or null when too many to list, writer: the
// Store that wrote it, null for entries logged before writers were}.
OPTIONAL MATCH (g:GraphMeta {project: $project})
WITH coalesce(g.version, 0) AS version
RETURN version, COLLECT {
  MATCH (c:GraphChange {project: $project})
  WHERE c.version > $since AND c.version <= version
  RETURN {version: c.version, ids: c.ids, writer: c.writer}
} AS changes
