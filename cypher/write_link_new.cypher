// Links newly created notes: a relationship to each distinct existing
// target (row.found) and one to the ghost of each distinct unresolved key
// (row.dangling), and sets the out-degree (a staged write creates notes
// without one, see neo4jstore/staged.go) and the hash when the row has
// one. Nothing to compare with,
// so nothing to delete; the targets' in-degrees are counted up by
// write_add_in_degrees.
//
// $rev (null outside staged writes) skips notes rewritten since the staged
// write created them: their writer drew their links. row.targets, when
// given (a staged write whose stage 1 stored a link's target as given, not
// as it resolves at the end), replaces the note's targets.
UNWIND $rows AS row
MATCH (n:Note {project: $project, id: row.id})
WHERE $rev IS NULL OR n.targets[0] = $rev
CALL (n, row) {
  UNWIND row.found AS targetID
  MATCH (m:Note {project: $project, id: targetID})
  CREATE (n)-[:LINKS_TO]->(m)
}
CALL (n, row) {
  UNWIND row.dangling AS key
  MERGE (u:Unresolved {project: $project, key: key})
  CREATE (n)-[:DANGLING]->(u)
}
SET n.outDegree = size(row.found), n.hash = coalesce(row.hash, n.hash),
    n.targets = coalesce(row.targets, n.targets)
