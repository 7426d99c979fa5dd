// Every note ID of the project in ID order with its normalised tags, its
// title and the IDs of the notes it links to, read from the (project, id)
// index in its order, without a sort (neo4jstore/catalog.go reads the
// change counter first, with catalog_version).
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
RETURN n.id AS id, n.tagsNorm AS tags, n.title AS title, [(n)-[:LINKS_TO]->(m:Note) | m.id] AS out
ORDER BY n.project, n.id
