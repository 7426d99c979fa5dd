// The catalog rows of the notes with these IDs (neo4jstore/catalog.go):
// missing IDs give nothing, which tells a catch-up the note is gone. Each
// row has the IDs of the notes it links to and of the notes linking to
// it: every link a write adds or removes has an end among the notes the
// write lists (or is drawn by a staged write, see catalog_changes), so a
// catch-up that reads both sides of the listed notes has every change.
UNWIND $ids AS id
MATCH (n:Note {project: $project, id: id})
RETURN n.id AS id, n.title AS title, n.tagsNorm AS tags,
       [(n)-[:LINKS_TO]->(m:Note) | m.id] AS out, [(n)<-[:LINKS_TO]-(m:Note) | m.id] AS in
