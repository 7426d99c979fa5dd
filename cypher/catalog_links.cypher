// A page of the project's links for the note catalog's full load
// (neo4jstore/catalog.go): the next $page notes after ID $after in index
// order, without a sort, each with the IDs of the notes it links to. The
// links are read in pages of their own reads after the catalog's rows, so
// that no one read of a large project nears the call timeout.
MATCH (n:Note {project: $project})
WHERE n.id > $after
RETURN n.id AS id, [(n)-[:LINKS_TO]->(m:Note) | m.id] AS out
ORDER BY n.project, n.id
LIMIT $page
