// Every note ID of the project in ID order with its normalised tags and
// title, read from the (project, id) index in its order, without a sort
// (neo4jstore/catalog.go reads the change counter first, with
// catalog_version; the links come after, catalog_links).
MATCH (n:Note {project: $project})
WHERE n.id IS NOT NULL
RETURN n.id AS id, n.tagsNorm AS tags, n.title AS title
ORDER BY n.project, n.id
