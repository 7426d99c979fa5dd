// The project's change counter and the notes with these IDs (missing IDs
// give nothing; order is not kept), each with its normalised tags: a
// catalog pick (neo4jstore/catalog.go) answered and checked in one round
// trip. With $head, a note comes as its head when that is of the note's
// current revision (see note_context_both), else as its doc.
OPTIONAL MATCH (g:GraphMeta {project: $project})
RETURN coalesce(g.version, 0) AS version, COLLECT {
  UNWIND $ids AS id
  MATCH (n:Note {project: $project, id: id})
  RETURN [n.id,
          CASE WHEN $head AND n.head STARTS WITH '{"rev":"' + n.targets[0] + '"' THEN n.head ELSE [n.doc, n.content] END,
          n.targets, n.tagsNorm]
} AS notes
