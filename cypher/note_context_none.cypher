// One note by ID with its stored degree and the titles of the notes it
// links to (core.ContextReader at get_node depth 0): the titles come from a
// walk of its LINKS_TO relationships, which are its resolved links, instead
// of a second round trip that looks the targets up by ID. They are left
// out when $titles is false: the caller has them from its catalog
// (neo4jstore/catalog.go) if version is the catalog's.
OPTIONAL MATCH (g:GraphMeta {project: $project})
WITH coalesce(g.version, 0) AS version
MATCH (c:Note {project: $project, id: $id})
RETURN c.id AS id, CASE WHEN $withNote THEN [c.doc, c.content] END AS doc, c.targets AS targets,
       c.inDegree AS in, c.outDegree AS out,
       CASE WHEN $withNote AND $titles THEN [(c)-[:LINKS_TO]->(t:Note) | [t.id, t.title]] ELSE [] END AS titles,
       [] AS neighbors, version
