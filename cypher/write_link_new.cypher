// Links newly created notes: a relationship to each distinct existing
// target (row.found) and one to the ghost of each distinct unresolved key
// (row.dangling), and sets the out-degree and hash (a staged write creates
// notes with neither, see neo4jstore/staged.go). Nothing to compare with,
// so nothing to delete; the targets' in-degrees are counted up by
// write_add_in_degrees.
UNWIND $rows AS row
MATCH (n:Note {project: $project, id: row.id})
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
SET n.hash = row.hash, n.outDegree = size(row.found)
