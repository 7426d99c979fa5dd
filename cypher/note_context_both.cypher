// What the graph tools read around one note, in one round trip
// (core.ContextReader): the note (its doc only when $withNote), its stored
// degree, up to $limit of its neighbours as neighbors_both lists them
// (outgoing, then incoming ones it does not link to, each by ID), and for
// the note and each neighbour the titles of the notes it links to. The
// titles come from a walk of LINKS_TO relationships (a note's resolved
// links) instead of a second round trip that looks every target up by ID.
// The titles are left out when $titles is false: the caller has them from
// its catalog (neo4jstore/catalog.go) if version is the catalog's.
// A neighbour comes as its head (neo4jstore/codec.go) when the head is of
// the note's current revision; else (a note written before heads, or by an
// older vaultgraph) as its doc.
OPTIONAL MATCH (g:GraphMeta {project: $project})
WITH coalesce(g.version, 0) AS version
MATCH (c:Note {project: $project, id: $id})
OPTIONAL CALL (c) {
  MATCH (c)-[:LINKS_TO]->(n:Note)
  RETURN n, 0 AS side
  UNION
  MATCH (c)<-[:LINKS_TO]-(n:Note)
  WHERE NOT (c)-[:LINKS_TO]->(n)
  RETURN n, 1 AS side
}
WITH version, c, n, side ORDER BY side, n.id LIMIT $limit
WITH version, c, collect(CASE WHEN n IS NOT NULL THEN
  [n.id, CASE WHEN n.head STARTS WITH '{"rev":"' + n.targets[0] + '"' THEN n.head ELSE [n.doc, n.content] END, n.targets, CASE side WHEN 0 THEN 'out' ELSE 'in' END,
   CASE WHEN $titles THEN [(n)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] ELSE [] END]
END) AS neighbors
RETURN c.id AS id, CASE WHEN $withNote THEN [c.doc, c.content] END AS doc, c.targets AS targets,
       c.inDegree AS in, c.outDegree AS out,
       CASE WHEN $withNote AND $titles THEN [(c)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] ELSE [] END AS titles,
       neighbors, version
