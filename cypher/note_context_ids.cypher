// What the graph tools read around one note when the note catalog
// (neo4jstore/catalog.go) holds the project's links: the catalog picks the
// neighbours in process ($neighbors: [[id, 'out' or 'in'], ...], in the
// order the answer lists them) and this statement reads the note (its doc
// only when $withNote), its stored degree, those neighbours by ID and the
// project's change counter in one round trip, without walking or sorting
// the note's relationships (a hub has 21k incoming at 100k notes). The
// caller uses the answer only when version is the catalog's, and then
// restores the neighbours' order (COLLECT keeps none) and takes the link
// titles from the catalog; else it reads again with note_context_*.
// Columns as note_context_both's; a neighbour comes as its head when the
// head is of its current revision, else as its doc.
OPTIONAL MATCH (g:GraphMeta {project: $project})
WITH coalesce(g.version, 0) AS version
MATCH (c:Note {project: $project, id: $id})
RETURN c.id AS id, CASE WHEN $withNote THEN [c.doc, c.content] END AS doc, c.targets AS targets,
       c.inDegree AS in, c.outDegree AS out,
       [] AS titles,
       COLLECT {
         UNWIND $neighbors AS nb
         MATCH (n:Note {project: $project, id: nb[0]})
         RETURN [n.id, CASE WHEN n.head STARTS WITH '{"rev":"' + n.targets[0] + '"' THEN n.head ELSE [n.doc, n.content] END, n.targets, nb[1], []]
       } AS neighbors,
       version
