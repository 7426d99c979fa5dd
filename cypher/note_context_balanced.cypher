// note_context_both for get_node's shared neighbour slots
// (core.ContextQuery.Balanced): up to $limit of the notes the note links
// to and up to $limit of the notes linking to it that it does not link to,
// each by ID; the caller keeps the first of each side as
// core.SplitNeighbors shares $limit between them. Reading up to $limit of
// each side (not every backlink of a hub) is enough for that split.
// Neighbours come as in note_context_both (head or doc), with the titles
// of their links unless $titles is false.
OPTIONAL MATCH (g:GraphMeta {project: $project})
WITH coalesce(g.version, 0) AS version
MATCH (c:Note {project: $project, id: $id})
OPTIONAL CALL (c) {
  MATCH (c)-[:LINKS_TO]->(n:Note)
  WITH n ORDER BY n.id LIMIT $limit
  RETURN n, 0 AS side
  UNION
  MATCH (c)<-[:LINKS_TO]-(n:Note)
  WHERE NOT (c)-[:LINKS_TO]->(n)
  WITH n ORDER BY n.id LIMIT $limit
  RETURN n, 1 AS side
}
WITH version, c, n, side ORDER BY side, n.id
WITH version, c, collect(CASE WHEN n IS NOT NULL THEN
  [n.id, CASE WHEN n.head STARTS WITH '{"rev":"' + n.targets[0] + '"' THEN n.head ELSE [n.doc, n.content] END, n.targets, CASE side WHEN 0 THEN 'out' ELSE 'in' END,
   CASE WHEN $titles THEN [(n)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] ELSE [] END]
END) AS neighbors
RETURN c.id AS id, CASE WHEN $withNote THEN [c.doc, c.content] END AS doc, c.targets AS targets,
       c.inDegree AS in, c.outDegree AS out,
       CASE WHEN $withNote AND $titles THEN [(c)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] ELSE [] END AS titles,
       neighbors, version
