// The catalog rows of the notes with these IDs (neo4jstore/catalog.go):
// missing IDs give nothing, which tells a catch-up the note is gone.
UNWIND $ids AS id
MATCH (n:Note {project: $project, id: id})
RETURN n.id AS id, n.title AS title, n.tagsNorm AS tags
