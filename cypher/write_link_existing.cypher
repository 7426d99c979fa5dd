// Brings the relationships of notes that existed before this transaction in
// line with their links, touching only what changed: Neo4j reads are not
// snapshots, so deleting and re-creating every link would let a concurrent
// reader see a hub briefly lose in-links it never lost.
//
// Per note: drop links to notes not in row.found and create the missing
// ones; let go of ghosts whose key is not in row.dangling and hang on the
// missing ones. Returns per note the notes that lost a link from it and the
// ghost keys let go of; the caller recounts degrees and deletes orphans.
UNWIND $rows AS row
MATCH (n:Note {project: $project, id: row.id})
CALL (n, row) {
  OPTIONAL MATCH (n)-[r:LINKS_TO]->(old:Note)
  WHERE NOT old.id IN row.found
  DELETE r
  RETURN collect(old.id) AS removed
}
CALL (n, row) {
  UNWIND row.found AS targetID
  MATCH (m:Note {project: $project, id: targetID})
  MERGE (n)-[:LINKS_TO]->(m)
}
CALL (n, row) {
  OPTIONAL MATCH (n)-[d:DANGLING]->(u:Unresolved)
  WHERE NOT u.key IN row.dangling
  DELETE d
  RETURN collect(u.key) AS dropped
}
CALL (n, row) {
  UNWIND row.dangling AS key
  MERGE (u:Unresolved {project: $project, key: key})
  MERGE (n)-[:DANGLING]->(u)
}
RETURN removed, dropped
