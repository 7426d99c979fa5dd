// Before notes are deleted: links that other notes hold to them become
// unresolved. The linking note's targets for them are blanked and it
// hangs on the ghost of each such link's key (the key it was written with).
// Returns the linking notes, whose out-degree must be recounted.
UNWIND $ids AS id
MATCH (d:Note {project: $project, id: id})<-[r:LINKS_TO]-(src:Note)
WHERE NOT src.id IN $ids
DELETE r
WITH src, collect(d.id) AS gone
WITH src, gone,
     [i IN range(0, size(src.linkKeys) - 1) WHERE src.targets[1 + i] IN gone | src.linkKeys[i]] AS keys
SET src.targets = src.targets[0..1] + [t IN src.targets[1..] | CASE WHEN t IN gone THEN '' ELSE t END]
WITH src, keys
CALL (src, keys) {
  UNWIND keys AS key
  WITH DISTINCT src, key
  MERGE (u:Unresolved {project: $project, key: key})
  MERGE (src)-[:DANGLING]->(u)
}
RETURN collect(src.id) AS sources
