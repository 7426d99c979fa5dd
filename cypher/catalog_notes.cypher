// The project's change counter and the notes with these IDs (missing IDs
// give nothing; order is not kept), each with its normalised tags and the
// titles of the notes it links to (a walk of its LINKS_TO relationships):
// a catalog pick (neo4jstore/catalog.go) answered and checked in one round
// trip.
OPTIONAL MATCH (g:GraphMeta {project: $project})
RETURN coalesce(g.version, 0) AS version, COLLECT {
  UNWIND $ids AS id
  MATCH (n:Note {project: $project, id: id})
  RETURN [n.id, n.doc, n.targets, n.tagsNorm, [(n)-[:LINKS_TO]->(t:Note) | [t.id, t.title]]]
} AS notes
